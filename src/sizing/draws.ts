/**
 * The fixed standard-normal draws every recommendation integrates over. They are generated once, at module load, from a
 * fixed-seed PRNG, so the same input gives the same probabilities bit for bit, and every input shares the same draws
 * (common random numbers: a bigger body moves every draw up, never reshuffles them).
 */

/** Number of draws (antithetic pairs: draw 2k+1 is the mirror of draw 2k). */
export const DRAW_COUNT = 4096;
/** Dimensions per draw: one per zone. */
export const DRAW_DIMENSIONS = 9;
const SEED = 0x5153_2f17;

/** sfc32, a small fast PRNG with a 128-bit state; deterministic for a given seed. */
export function sfc32(seed: number): () => number {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 20; i++) next();
  return next;
}

function makeDraws(): Float64Array {
  const random = sfc32(SEED);
  const draws = new Float64Array(DRAW_COUNT * DRAW_DIMENSIONS);
  const half = (DRAW_COUNT / 2) * DRAW_DIMENSIONS;
  for (let i = 0; i < half; i += 2) {
    // Box–Muller; 1 − u keeps the logarithm finite
    const u1 = 1 - random();
    const u2 = random();
    const r = Math.sqrt(-2 * Math.log(u1));
    draws[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < half) draws[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  // antithetic: lay out pairs (z, −z) so any prefix of whole pairs is balanced
  const paired = new Float64Array(DRAW_COUNT * DRAW_DIMENSIONS);
  for (let k = 0; k < DRAW_COUNT / 2; k++) {
    for (let d = 0; d < DRAW_DIMENSIONS; d++) {
      const z = draws[k * DRAW_DIMENSIONS + d];
      paired[2 * k * DRAW_DIMENSIONS + d] = z;
      paired[(2 * k + 1) * DRAW_DIMENSIONS + d] = -z;
    }
  }
  return paired;
}

/** DRAW_COUNT × DRAW_DIMENSIONS standard-normal values, row-major (draw i, dimension d at i·9 + d). */
export const STANDARD_NORMAL_DRAWS: Float64Array = makeDraws();
