/**
 * Fits the body model on the training part of ANSUR II and writes src/fit/engine/body-model.coefficients.ts.
 *
 *   npm run fit:body-model          (ANSUR_DIR=… to read the CSV files from elsewhere)
 *
 * Per sex, per zone: log(zone cm) = b0 + b1·log(height cm) + b2·log(weight kg) [+ b3·age], by OLS, once with age and
 * once without. A negative weight coefficient (heavier, same height, smaller zone: inseam does that a little) is refitted
 * with the weight term dropped, so a heavier shopper never gets smaller estimates. Also per sex: the residual
 * covariance of the nine log zones and a bivariate normal of (log height, log weight) for the sex mixture. It also
 * prints how much the coefficients' own uncertainty (x₀ᵀ(XᵀX)⁻¹x₀) would add to the predictive sd, which the engine
 * leaves out (under 1% inside the data's range).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { BodyModelCoefficients, RegressionModel, RegressionTerm, SexBodyModel } from '../src/fit/engine/body-model.schema.js';
import { ANSWER_LIMITS } from '../src/fit/engine/limits.js';
import { meanAndCovariance, ols, type Matrix } from '../src/fit/engine/linalg.js';
import { SEXES, ZONES, type Sex } from '../src/fit/engine/types.js';
import { loadAnsur, projectRoot, SPLIT_RULE, ZONE_COLUMNS, type Subject } from './lib/ansur.js';

const SCRIPT = 'scripts/fit-body-model.ts';
const FORMULA =
  'log(zone cm) ~ 1 + log(height cm) + log(weight kg) + age (and without age), OLS per sex and zone on the training ' +
  'split; weight term dropped where its coefficient is negative; residuals ~ N(0, Σ_sex) on the log scale';

function design(s: Subject, withAge: boolean): number[] {
  const row = [1, Math.log(s.heightCm), Math.log(s.weightKg)];
  if (withAge) row.push(s.age);
  return row;
}

function fitRegression(train: readonly Subject[], withAge: boolean): { model: RegressionModel; xtxInverse: Matrix } {
  const terms: RegressionTerm[] = ['intercept', 'logHeightCm', 'logWeightKg'];
  if (withAge) terms.push('ageYears');
  const x = train.map((s) => design(s, withAge));
  const y = train.map((s) => ZONES.map((z) => Math.log(s.zones[z])));
  const full = ols(x, y);
  const coefficients = full.coefficients.map((row) => [...row]);
  const weightTermDropped: string[] = [];
  const weightIndex = terms.indexOf('logWeightKg');
  ZONES.forEach((zone, j) => {
    if (coefficients[j][weightIndex] >= 0) return;
    weightTermDropped.push(zone);
    const reduced = ols(
      x.map((row) => row.filter((_, i) => i !== weightIndex)),
      y.map((row) => [row[j]]),
    );
    const refit = [...reduced.coefficients[0]];
    refit.splice(weightIndex, 0, 0);
    coefficients[j] = refit;
  });
  // every zone must grow with a bigger body: with weight, and with height at a constant BMI (weight ∝ height²)
  ZONES.forEach((zone, j) => {
    const bh = coefficients[j][terms.indexOf('logHeightCm')];
    const bw = coefficients[j][weightIndex];
    if (bw < 0 || bh + 2 * bw < 0) throw new Error(`${zone}: the fit is not monotone in body size (bh ${bh}, bw ${bw})`);
  });
  const residuals = train.map((s, r) =>
    ZONES.map((_, j) => y[r][j] - coefficients[j].reduce((sum, b, i) => sum + b * x[r][i], 0)),
  );
  const p = terms.length;
  const residualCovariance = ZONES.map((_, i) =>
    ZONES.map((__, j) => residuals.reduce((sum, row) => sum + row[i] * row[j], 0) / (train.length - p)),
  );
  return { model: { terms, coefficients, weightTermDropped, residualCovariance }, xtxInverse: full.xtxInverse };
}

/** How much the coefficients' own uncertainty would widen the predictive sd: max √(1 + x₀ᵀ(XᵀX)⁻¹x₀) − 1. */
function coefficientUncertainty(xtxInverse: Matrix, points: readonly number[][]): number {
  let worst = 0;
  for (const x of points) {
    let leverage = 0;
    for (let i = 0; i < x.length; i++) for (let j = 0; j < x.length; j++) leverage += x[i] * xtxInverse[i][j] * x[j];
    worst = Math.max(worst, Math.sqrt(1 + leverage) - 1);
  }
  return worst;
}

function fitSex(train: readonly Subject[]): { model: SexBodyModel; uncertainty: { inData: number; atLimits: number } } {
  const hw = meanAndCovariance(train.map((s) => [Math.log(s.heightCm), Math.log(s.weightKg)]));
  const withAge = fitRegression(train, true);
  const withoutAge = fitRegression(train, false);
  const corners: number[][] = [];
  for (const h of [ANSWER_LIMITS.height.min, ANSWER_LIMITS.height.max]) {
    for (const w of [ANSWER_LIMITS.weight.min, ANSWER_LIMITS.weight.max]) corners.push([1, Math.log(h), Math.log(w), 30]);
  }
  return {
    model: {
      trainingRows: train.length,
      heightWeight: { mean: hw.mean, covariance: hw.covariance },
      ageRange: { min: Math.min(...train.map((s) => s.age)), max: Math.max(...train.map((s) => s.age)) },
      withAge: withAge.model,
      withoutAge: withoutAge.model,
    },
    uncertainty: {
      inData: coefficientUncertainty(
        withAge.xtxInverse,
        train.map((s) => design(s, true)),
      ),
      atLimits: coefficientUncertainty(withAge.xtxInverse, corners),
    },
  };
}

/** TS source for a value: objects one key a line, arrays of numbers on one line, full double precision. */
function toSource(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'number' || typeof v === 'string')) {
      return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    }
    return `[\n${value.map((v) => `${inner}${toSource(v, inner)},`).join('\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => {
      const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k);
      return `${inner}${key}: ${toSource(v, inner)},`;
    });
    return `{\n${entries.join('\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

function main(): void {
  const data = loadAnsur();
  const root = projectRoot();
  const bySex = (sex: Sex, heldOut: boolean) => data.subjects.filter((s) => s.sex === sex && s.heldOut === heldOut);
  const fits = { female: fitSex(bySex('female', false)), male: fitSex(bySex('male', false)) };
  const female = fits.female.model;
  const male = fits.male.model;
  const model = { female, male };
  const hash = createHash('sha256').update(JSON.stringify(model)).digest('hex').slice(0, 8);
  const today = new Date().toISOString().slice(0, 10);
  const modelVersion = `ansur2-ols-${today.replaceAll('-', '')}-${hash}`;
  const coefficients: BodyModelCoefficients = {
    modelVersion,
    female,
    male,
    provenance: {
      script: SCRIPT,
      fittedOn: today,
      sourceFiles: data.files,
      rowsUsed: Object.fromEntries(
        SEXES.map((sex) => [
          sex,
          { train: bySex(sex, false).length, test: bySex(sex, true).length, excluded: data.excluded[sex] },
        ]),
      ),
      split: SPLIT_RULE,
      formula: FORMULA,
      zoneColumns: ZONE_COLUMNS,
      units: 'ANSUR lengths mm → cm (÷10), weightkg tenths of kg → kg (÷10), stature mm → cm, Age years',
    },
  };
  const source =
    `// generated by npm run fit:body-model — do not edit (${SCRIPT}, ${today})\n` +
    `// Source: ANSUR II public data (${data.files.map((f) => `${f.name} sha256 ${f.sha256}`).join(', ')}).\n` +
    `import type { BodyModelCoefficients } from './body-model.schema.js';\n\n` +
    `export const BODY_MODEL_COEFFICIENTS: BodyModelCoefficients = ${toSource(coefficients)};\n`;
  const out = join(root, 'src', 'fit', 'engine', 'body-model.coefficients.ts');
  writeFileSync(out, source);

  console.log(`ANSUR II from ${data.dir}`);
  for (const sex of SEXES) {
    const m = coefficients[sex];
    const rows = coefficients.provenance.rowsUsed[sex];
    const u = fits[sex].uncertainty;
    console.log(`\n${sex}: train ${rows.train}, held out ${rows.test}, excluded ${rows.excluded}; ages ${m.ageRange.min}–${m.ageRange.max}`);
    console.log(
      `coefficient uncertainty would widen the sd by at most ${(100 * u.inData).toFixed(2)}% over the training ` +
        `subjects, ${(100 * u.atLimits).toFixed(1)}% at the corners of the answer limits (not applied)`,
    );
    console.log('zone          b(log h)  b(log w)  b(age)     sd(log)  sd(log, no age)');
    ZONES.forEach((zone, j) => {
      const b = m.withAge.coefficients[j];
      const sd = Math.sqrt(m.withAge.residualCovariance[j][j]);
      const sd0 = Math.sqrt(m.withoutAge.residualCovariance[j][j]);
      console.log(
        `${zone.padEnd(12)} ${b[1].toFixed(3).padStart(9)} ${b[2].toFixed(3).padStart(9)} ${b[3].toFixed(5).padStart(9)}` +
          `  ${sd.toFixed(4).padStart(8)}  ${sd0.toFixed(4).padStart(8)}`,
      );
    });
    for (const [name, r] of [
      ['with age', m.withAge],
      ['without age', m.withoutAge],
    ] as const) {
      if (r.weightTermDropped.length > 0) console.log(`weight term dropped (${name}): ${r.weightTermDropped.join(', ')}`);
    }
  }
  console.log(`\nwrote ${relative(root, out)} (${modelVersion})`);
}

main();
