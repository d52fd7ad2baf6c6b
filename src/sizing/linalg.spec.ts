import { describe, expect, it } from '@jest/globals';
import { cholesky, choleskySolve, multiply, nnlsGram, ols, spdInverse, transpose } from './linalg.js';

const spd = [
  [4, 2, 0.6],
  [2, 5, 1.5],
  [0.6, 1.5, 3],
];

describe('linalg', () => {
  it('factors and inverts a symmetric positive definite matrix', () => {
    const l = cholesky(spd);
    const back = multiply(l, transpose(l));
    back.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(spd[i][j], 12)));
    const identity = multiply(spd, spdInverse(spd));
    identity.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(i === j ? 1 : 0, 12)));
    const x = choleskySolve(l, [1, 2, 3]);
    multiply(
      spd,
      x.map((v) => [v]),
    ).forEach((row, i) => expect(row[0]).toBeCloseTo([1, 2, 3][i], 12));
    expect(() =>
      cholesky([
        [1, 2],
        [2, 1],
      ]),
    ).toThrow(RangeError);
  });

  it('recovers OLS coefficients of an exact linear relation', () => {
    const x = Array.from({ length: 20 }, (_, i) => [1, i, (i * i) % 7]);
    const y = x.map((r) => [2 + 0.5 * r[1] - 3 * r[2], -1 + r[1]]);
    const fit = ols(x, y);
    [2, 0.5, -3].forEach((b, i) => expect(fit.coefficients[0][i]).toBeCloseTo(b, 10));
    [-1, 1, 0].forEach((b, i) => expect(fit.coefficients[1][i]).toBeCloseTo(b, 10));
    expect(fit.residualCovariance[0][0]).toBeCloseTo(0, 12);
  });

  it('NNLS keeps the unconstrained solution when it is non-negative, and clamps otherwise', () => {
    // unconstrained solution of spd·β = g is β = (1, 1, 1)
    const g = spd.map((row) => row.reduce((a, b) => a + b, 0));
    nnlsGram(spd, g).forEach((b) => expect(b).toBeCloseTo(1, 10));
    // a negative partial relation is dropped: β ≥ 0 everywhere
    const corr = [
      [1, 0.8],
      [0.8, 1],
    ];
    const beta = nnlsGram(corr, [0.6, 0.1]);
    expect(beta[1]).toBe(0);
    expect(beta[0]).toBeCloseTo(0.6, 12);
  });
});
