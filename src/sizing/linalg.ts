/**
 * The little dense linear algebra the body model needs (matrices of at most 9×9), written out so the engine has no
 * dependency. Matrices are row-major `number[][]`; nothing here allocates more than it returns.
 */

export type Matrix = number[][];

function zeros(rows: number, cols: number): Matrix {
  return Array.from({ length: rows }, () => new Array<number>(cols).fill(0));
}

export function transpose(a: Matrix): Matrix {
  const rows = a.length;
  const cols = rows === 0 ? 0 : a[0].length;
  const t = zeros(cols, rows);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j][i] = a[i][j];
  return t;
}

export function multiply(a: Matrix, b: Matrix): Matrix {
  const n = a.length;
  const m = b.length;
  const p = m === 0 ? 0 : b[0].length;
  const c = zeros(n, p);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < m; k++) {
      const aik = a[i][k];
      if (aik === 0) continue;
      for (let j = 0; j < p; j++) c[i][j] += aik * b[k][j];
    }
  }
  return c;
}

/** Lower-triangular L with L·Lᵀ = a. Throws if `a` is not (numerically) positive definite. */
export function cholesky(a: Matrix): Matrix {
  const n = a.length;
  const l = zeros(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i][j];
      for (let k = 0; k < j; k++) sum -= l[i][k] * l[j][k];
      if (i === j) {
        if (!(sum > 0)) throw new RangeError(`matrix is not positive definite (pivot ${i}: ${sum})`);
        l[i][i] = Math.sqrt(sum);
      } else {
        l[i][j] = sum / l[j][j];
      }
    }
  }
  return l;
}

/** Solves L·Lᵀ·x = b for x, given the Cholesky factor L. */
export function choleskySolve(l: Matrix, b: readonly number[]): number[] {
  const n = l.length;
  const y = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i];
    for (let k = 0; k < i; k++) sum -= l[i][k] * y[k];
    y[i] = sum / l[i][i];
  }
  const x = new Array<number>(n);
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i];
    for (let k = i + 1; k < n; k++) sum -= l[k][i] * x[k];
    x[i] = sum / l[i][i];
  }
  return x;
}

/** The inverse of a symmetric positive definite matrix. */
export function spdInverse(a: Matrix): Matrix {
  const n = a.length;
  const l = cholesky(a);
  const inv = zeros(n, n);
  for (let j = 0; j < n; j++) {
    const e = new Array<number>(n).fill(0);
    e[j] = 1;
    const col = choleskySolve(l, e);
    for (let i = 0; i < n; i++) inv[i][j] = col[i];
  }
  return inv;
}

/**
 * Non-negative least squares in Gram form: minimises ½·βᵀGβ − βᵀg subject to β ≥ 0, for a symmetric positive definite
 * G (Lawson–Hanson active set). With G = XᵀX and g = Xᵀy it is the NNLS regression of y on X.
 */
export function nnlsGram(g: Matrix, rhs: readonly number[], tolerance = 1e-12): number[] {
  const n = rhs.length;
  const beta = new Array<number>(n).fill(0);
  const passive = new Array<boolean>(n).fill(false);
  const solveOnPassive = (): number[] => {
    const idx: number[] = [];
    for (let i = 0; i < n; i++) if (passive[i]) idx.push(i);
    const sub = idx.map((i) => idx.map((j) => g[i][j]));
    const sol = choleskySolve(
      cholesky(sub),
      idx.map((i) => rhs[i]),
    );
    const full = new Array<number>(n).fill(0);
    idx.forEach((i, k) => (full[i] = sol[k]));
    return full;
  };
  for (let outer = 0; outer < 3 * n + 10; outer++) {
    // gradient of the objective's negative: w = g − Gβ
    let best = -1;
    let bestW = tolerance;
    for (let j = 0; j < n; j++) {
      if (passive[j]) continue;
      let w = rhs[j];
      for (let k = 0; k < n; k++) w -= g[j][k] * beta[k];
      if (w > bestW) {
        bestW = w;
        best = j;
      }
    }
    if (best < 0) break;
    passive[best] = true;
    for (let inner = 0; inner < 3 * n + 10; inner++) {
      const s = solveOnPassive();
      let ok = true;
      for (let j = 0; j < n; j++) if (passive[j] && s[j] <= 0) ok = false;
      if (ok) {
        for (let j = 0; j < n; j++) beta[j] = s[j];
        break;
      }
      let alpha = Infinity;
      for (let j = 0; j < n; j++) {
        if (passive[j] && s[j] <= 0) alpha = Math.min(alpha, beta[j] / (beta[j] - s[j]));
      }
      for (let j = 0; j < n; j++) {
        if (!passive[j]) continue;
        beta[j] += alpha * (s[j] - beta[j]);
        if (beta[j] <= tolerance) {
          beta[j] = 0;
          passive[j] = false;
        }
      }
    }
  }
  return beta;
}

/**
 * Ordinary least squares of every column of `y` on the design `x` (normal equations, Cholesky): the coefficients
 * (one row per column of y), the residual covariance (divisor n − p) and (XᵀX)⁻¹.
 */
export function ols(
  x: readonly (readonly number[])[],
  y: readonly (readonly number[])[],
): { coefficients: Matrix; residualCovariance: Matrix; xtxInverse: Matrix; residuals: Matrix } {
  const n = x.length;
  const p = x[0].length;
  const q = y[0].length;
  if (n <= p) throw new RangeError(`OLS needs more rows (${n}) than columns (${p})`);
  const xtx = zeros(p, p);
  const xty = zeros(p, q);
  for (let r = 0; r < n; r++) {
    const xr = x[r];
    const yr = y[r];
    for (let i = 0; i < p; i++) {
      for (let j = 0; j < p; j++) xtx[i][j] += xr[i] * xr[j];
      for (let j = 0; j < q; j++) xty[i][j] += xr[i] * yr[j];
    }
  }
  const l = cholesky(xtx);
  const coefficients: Matrix = [];
  for (let j = 0; j < q; j++)
    coefficients.push(
      choleskySolve(
        l,
        xty.map((row) => row[j]),
      ),
    );
  const residuals: Matrix = y.map((yr, r) =>
    yr.map((v, j) => {
      let fit = 0;
      for (let i = 0; i < p; i++) fit += coefficients[j][i] * x[r][i];
      return v - fit;
    }),
  );
  return { coefficients, residualCovariance: covariance(residuals, p), xtxInverse: spdInverse(xtx), residuals };
}

/** Covariance of the rows of `data` around zero (residuals) with divisor n − dof. */
function covariance(data: readonly (readonly number[])[], dof: number): Matrix {
  const n = data.length;
  const q = data[0].length;
  const c = zeros(q, q);
  for (const row of data) for (let i = 0; i < q; i++) for (let j = 0; j < q; j++) c[i][j] += row[i] * row[j];
  for (let i = 0; i < q; i++) for (let j = 0; j < q; j++) c[i][j] /= n - dof;
  return c;
}

/** Sample mean and covariance (divisor n − 1) of the rows of `data`. */
export function meanAndCovariance(data: readonly (readonly number[])[]): { mean: number[]; covariance: Matrix } {
  const n = data.length;
  const q = data[0].length;
  const mean = new Array<number>(q).fill(0);
  for (const row of data) for (let i = 0; i < q; i++) mean[i] += row[i] / n;
  const centred = data.map((row) => row.map((v, i) => v - mean[i]));
  return { mean, covariance: covariance(centred, 1) };
}
