import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { BODY_MODEL_COEFFICIENTS } from '../../src/sizing/body-model.coefficients.js';
import { ansurDir, loadAnsur } from './ansur.js';
import { fitBodyModel } from './body-model-fit.js';
import { loadNhanes, NHANES_FILE, nhanesDir } from './nhanes.js';
import { toSource } from './source.js';

describe('generated body-model coefficients', () => {
  it('round-trip through their TypeScript source at full double precision', () => {
    const value = { a: [0.1 + 0.2, -1e-300, 5e-324, 123456789.12345679, 1 / 3], nested: { 'a-b': [[1, 2]], s: ['x"y'] } };
    expect(runInNewContext(`(${toSource(value)})`)).toEqual(value);
    const { female, male } = BODY_MODEL_COEFFICIENTS;
    expect(runInNewContext(`(${toSource({ female, male })})`)).toEqual({ female, male });
  });

  // the data sets sit beside the project (../shared/data), never inside it; the check runs wherever they are present
  const haveData = existsSync(join(nhanesDir(), NHANES_FILE)) && existsSync(ansurDir());
  (haveData ? it : it.skip)('are exactly what fitting the training data gives (npm run fit:body-model)', () => {
    const ansur = loadAnsur();
    const nhanes = loadNhanes();
    const files = [...ansur.files, nhanes.file];
    expect(BODY_MODEL_COEFFICIENTS.provenance.sourceFiles).toEqual(files);
    const fits = fitBodyModel(
      nhanes.people,
      ansur.subjects.filter((s) => !s.heldOut),
    );
    expect(fits.female.model).toEqual(BODY_MODEL_COEFFICIENTS.female);
    expect(fits.male.model).toEqual(BODY_MODEL_COEFFICIENTS.male);
  });
});
