/**
 * Reading the NHANES 2017–March 2020 body measures (training part) for the body-model fit and its cross-validation:
 * adults with height, weight, waist and hip measured, and a fixed assignment to folds. Scripts only: the service never
 * reads the data set.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Sex } from '../../src/sizing/types.js';
import { projectRoot } from './ansur.js';

export const NHANES_FILE = 'p_demo_bmx_train.csv';
export const FOLDS = 5;
export const FOLD_RULE = `fold = parseInt(sha256("nhanes:" + SEQN).slice(0, 8), 16) % ${FOLDS}`;
/** Adults only: the survey measures children too, and the service's shoppers are adults. */
export const MIN_AGE = 18;

export interface Person {
  readonly id: string;
  readonly sex: Sex;
  readonly heightCm: number;
  readonly weightKg: number;
  /** Years; 80 means 80 and over. */
  readonly age: number;
  /** Waist circumference just above the iliac crest, cm. */
  readonly waistCm: number;
  /** Hip circumference at the maximum extension of the buttocks, cm. */
  readonly hipCm: number;
  /** The examination sample weight (WTMECPRP), for population-representative figures. */
  readonly sampleWeight: number;
  readonly fold: number;
}

export interface NhanesData {
  readonly dir: string;
  readonly file: { readonly name: string; readonly sha256: string; readonly rows: number };
  readonly people: readonly Person[];
  /** Rows left out: children, and adults missing a measurement this model needs. */
  readonly excluded: { readonly underAge: number; readonly incomplete: number };
}

export function nhanesDir(): string {
  return resolve(process.env.NHANES_DIR ?? join(projectRoot(), '..', 'shared', 'data', 'nhanes-2017-2020'));
}

export function foldOf(seqn: string): number {
  const hex = createHash('sha256').update(`nhanes:${seqn}`).digest('hex');
  return parseInt(hex.slice(0, 8), 16) % FOLDS;
}

export function loadNhanes(dir = nhanesDir()): NhanesData {
  const bytes = readFileSync(join(dir, NHANES_FILE));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // the header is preceded by '#' lines naming the source pages
  const lines = bytes
    .toString('utf8')
    .split(/\r?\n/)
    .filter((line) => line.length > 0 && !line.startsWith('#'));
  const header = lines[0].split(',').map((c) => c.replaceAll('"', '').trim());
  const column = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${NHANES_FILE}: no column ${name}`);
    return i;
  };
  const cols = {
    id: column('SEQN'),
    sex: column('RIAGENDR'),
    age: column('RIDAGEYR'),
    height: column('BMXHT'),
    weight: column('BMXWT'),
    waist: column('BMXWAIST'),
    hip: column('BMXHIP'),
    sampleWeight: column('WTMECPRP'),
  };
  const people: Person[] = [];
  let underAge = 0;
  let incomplete = 0;
  for (const line of lines.slice(1)) {
    const cells = line.split(',');
    const num = (i: number): number => (cells[i] === undefined || cells[i] === 'NA' || cells[i] === '' ? NaN : Number(cells[i]));
    const age = num(cols.age);
    if (!(age >= MIN_AGE)) {
      underAge++;
      continue;
    }
    const sexCode = num(cols.sex);
    const values = [num(cols.height), num(cols.weight), num(cols.waist), num(cols.hip), num(cols.sampleWeight)];
    if (!(sexCode === 1 || sexCode === 2) || !values.every((v) => Number.isFinite(v) && v > 0)) {
      incomplete++;
      continue;
    }
    const [heightCm, weightKg, waistCm, hipCm, sampleWeight] = values;
    const id = cells[cols.id].trim();
    people.push({
      id,
      sex: sexCode === 1 ? 'male' : 'female',
      heightCm,
      weightKg,
      age,
      waistCm,
      hipCm,
      sampleWeight,
      fold: foldOf(id),
    });
  }
  return { dir, file: { name: NHANES_FILE, sha256, rows: lines.length - 1 }, people, excluded: { underAge, incomplete } };
}
