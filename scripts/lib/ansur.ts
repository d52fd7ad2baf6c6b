/**
 * Reading ANSUR II (US Army anthropometric survey, 2012) for the body-model fitting and its evaluation: both CSV files,
 * units converted to cm / kg, and the fixed held-out split. Scripts only: the service never reads the data set.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZONES, type Sex, type Zone } from '../../src/sizing/types.js';

/** ANSUR II column (lower-cased) of every zone; all are in millimetres. */
export const ZONE_COLUMNS: Readonly<Record<Zone, string>> = {
  chest: 'chestcircumference',
  waist: 'waistcircumference',
  hip: 'buttockcircumference',
  inseam: 'crotchheight',
  neck: 'neckcircumferencebase',
  sleeve: 'sleeveoutseam',
  foot_length: 'footlength',
  head: 'headcircumference',
  thigh: 'thighcircumference',
};

export const SOURCE_FILES: readonly { readonly sex: Sex; readonly name: string }[] = [
  { sex: 'female', name: 'ANSUR_II_FEMALE_Public.csv' },
  { sex: 'male', name: 'ANSUR_II_MALE_Public.csv' },
];

export const SPLIT_RULE = 'test if parseInt(sha256("ansur-ii:" + subject id).slice(0, 8), 16) % 5 === 0 (about 20%), else train';

/** The fixed held-out split: a hash of the subject id, so it never depends on file order or on the run. */
export function isHeldOut(subjectId: string): boolean {
  const hex = createHash('sha256').update(`ansur-ii:${subjectId}`).digest('hex');
  return parseInt(hex.slice(0, 8), 16) % 5 === 0;
}

export interface Subject {
  readonly id: string;
  readonly sex: Sex;
  readonly heightCm: number;
  readonly weightKg: number;
  readonly age: number;
  readonly zones: Readonly<Record<Zone, number>>;
  readonly heldOut: boolean;
}

export interface AnsurData {
  readonly dir: string;
  readonly files: readonly { readonly name: string; readonly sha256: string; readonly rows: number }[];
  readonly subjects: readonly Subject[];
  readonly excluded: Readonly<Record<Sex, number>>;
}

/** The project root (scripts run from dist/scripts or, under ts tooling, from scripts). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      readFileSync(join(dir, 'package.json'));
      return dir;
    } catch {
      dir = dirname(dir);
    }
  }
  return process.cwd();
}

export function ansurDir(): string {
  return resolve(process.env.ANSUR_DIR ?? join(projectRoot(), '..', 'shared', 'data', 'ansur-ii'));
}

export function loadAnsur(dir = ansurDir()): AnsurData {
  const files: { name: string; sha256: string; rows: number }[] = [];
  const subjects: Subject[] = [];
  const excluded: Record<Sex, number> = { female: 0, male: 0 };
  for (const { sex, name } of SOURCE_FILES) {
    const bytes = readFileSync(join(dir, name));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    // the male file is cp1252 (one "é"); the female file is ASCII, a subset of it
    const text = new TextDecoder('windows-1252').decode(bytes);
    const lines = text.split(/\r?\n/).filter((line) => line.length > 0);
    const header = lines[0].split(',').map((c) => c.trim().toLowerCase());
    const column = (col: string): number => {
      const i = header.indexOf(col);
      if (i < 0) throw new Error(`${name}: no column ${col}`);
      return i;
    };
    const idCol = column('subjectid');
    const statureCol = column('stature');
    const weightCol = column('weightkg');
    const ageCol = column('age');
    const zoneCols = ZONES.map((z) => column(ZONE_COLUMNS[z]));
    for (const line of lines.slice(1)) {
      const cells = line.split(',');
      const num = (i: number): number => (cells[i] === undefined || cells[i].trim() === '' ? NaN : Number(cells[i]));
      const heightCm = num(statureCol) / 10;
      const weightKg = num(weightCol) / 10;
      const age = num(ageCol);
      const values = zoneCols.map((i) => num(i) / 10);
      const ok =
        cells.length === header.length &&
        heightCm > 100 &&
        heightCm < 250 &&
        weightKg > 25 &&
        weightKg < 300 &&
        age > 0 &&
        age < 120 &&
        values.every((v) => Number.isFinite(v) && v > 0);
      if (!ok) {
        excluded[sex]++;
        continue;
      }
      const id = cells[idCol].trim();
      subjects.push({
        id,
        sex,
        heightCm,
        weightKg,
        age,
        zones: Object.fromEntries(ZONES.map((z, k) => [z, values[k]])) as Record<Zone, number>,
        heldOut: isHeldOut(id),
      });
    }
    files.push({ name, sha256, rows: lines.length - 1 });
  }
  return { dir, files, subjects, excluded };
}
