/**
 * Reading the RentTheRunway fit feedback (training part) for the evaluation of learning from outcomes: every rental with
 * the customer's answers, the item, the size rented and her verdict, in time order. Scripts only: the service never
 * reads the data set, and it is read from where it lies (RTR_DIR), never copied into the project.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectRoot } from './ansur.js';

export const RTR_FILE = 'train.csv';

export type Verdict = 'small' | 'fit' | 'large';
export const VERDICTS: readonly Verdict[] = ['small', 'fit', 'large'];

/** Cup letters in order; a bigger cup at the same band is a bigger bust. */
const CUPS = ['aa', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

export interface Rental {
  readonly verdict: Verdict;
  readonly userId: string;
  readonly itemId: string;
  readonly category: string;
  /** The size rented, on the shop's numeric scale. */
  readonly size: number;
  readonly weightLbs: number | null;
  readonly heightIn: number | null;
  readonly age: number | null;
  readonly bustBand: number | null;
  /** Index of the cup letter in CUPS (aa = 0). */
  readonly cup: number | null;
  readonly bodyType: string | null;
  /** The review date, UTC midnight, in ms. */
  readonly at: number;
}

export interface RtrData {
  readonly dir: string;
  readonly file: { readonly name: string; readonly sha256: string; readonly rows: number };
  /** Sorted by review date; rentals of one day keep the file's order. */
  readonly rentals: readonly Rental[];
  /** Rows left out: no verdict, item, size or date that can be read. */
  readonly excluded: number;
}

export function rtrDir(): string {
  return resolve(process.env.RTR_DIR ?? join(projectRoot(), '..', 'shared', 'data', 'renttherunway'));
}

const numberOrNull = (cell: string | undefined): number | null => {
  if (cell === undefined || cell.trim() === '') return null;
  const v = Number(cell);
  return Number.isFinite(v) ? v : null;
};

export function loadRtr(dir = rtrDir()): RtrData {
  const bytes = readFileSync(join(dir, RTR_FILE));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // the header is preceded by '#' lines describing the source; no field holds a comma (the review text was removed)
  const lines = bytes
    .toString('utf8')
    .split(/\r?\n/)
    .filter((line) => line.length > 0 && !line.startsWith('#'));
  const header = lines[0].split(',');
  const column = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${RTR_FILE}: no column ${name}`);
    return i;
  };
  const c = {
    fit: column('fit'),
    user: column('user_id'),
    item: column('item_id'),
    size: column('size'),
    weight: column('weight_lbs'),
    height: column('height_in'),
    age: column('age'),
    bust: column('bust_size_num'),
    cup: column('bust_size_letter'),
    body: column('body_type'),
    category: column('category'),
    date: column('review_date'),
  };
  const rentals: Rental[] = [];
  let excluded = 0;
  for (const line of lines.slice(1)) {
    const cells = line.split(',');
    const verdict = cells[c.fit] as Verdict;
    const size = numberOrNull(cells[c.size]);
    const at = Date.parse(`${cells[c.date]}T00:00:00Z`);
    if (!VERDICTS.includes(verdict) || size === null || !cells[c.item] || Number.isNaN(at)) {
      excluded++;
      continue;
    }
    const cup = CUPS.indexOf(cells[c.cup]);
    rentals.push({
      verdict,
      userId: cells[c.user],
      itemId: cells[c.item],
      category: cells[c.category] || 'unknown',
      size,
      weightLbs: numberOrNull(cells[c.weight]),
      heightIn: numberOrNull(cells[c.height]),
      age: numberOrNull(cells[c.age]),
      bustBand: numberOrNull(cells[c.bust]),
      cup: cup < 0 ? null : cup,
      bodyType: cells[c.body] || null,
      at,
    });
  }
  // a stable sort: rentals reviewed the same day keep the file's order
  rentals.sort((a, b) => a.at - b.at);
  return { dir, file: { name: RTR_FILE, sha256, rows: lines.length - 1 }, rentals, excluded };
}
