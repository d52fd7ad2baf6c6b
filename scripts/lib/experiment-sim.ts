/**
 * Simulated shoppers with known behaviour for `npm run eval:experiments`: what each exposed shopper does in her arm
 * (buys or not, how many lines, which come back for size), drawn from a seeded generator, so the true effect of every
 * arm is known and the service's results can be scored against it.
 */

/** A seeded generator of uniform numbers in [0, 1) (mulberry32): the same seed, the same shoppers. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box–Muller). */
export function normal(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A Poisson draw (Knuth's product of uniforms; small means only). */
export function poisson(random: () => number, mean: number): number {
  const limit = Math.exp(-mean);
  let count = 0;
  for (let product = random(); product > limit; product *= random()) count++;
  return count;
}

/** How shoppers of one arm behave. */
export interface ArmTruth {
  /** Chance an exposed shopper of average propensity buys. */
  readonly conversion: number;
  /** Chance a bought line of a shopper of average return habit comes back for size. */
  readonly sizeReturn: number;
}

/** What one shopper is like, whatever her arm: how keen a buyer, how often her sizes come back. */
export interface Shopper {
  /** Her buying propensity on the logit scale, N(0, 1): it also drives her purchases before the experiment. */
  readonly keenness: number;
  /** Her return habit on the logit scale: lines of one shopper share it, so they are not independent. */
  readonly habit: number;
}

const logit = (p: number) => Math.log(p / (1 - p));
const logistic = (x: number) => 1 / (1 + Math.exp(-x));

/** How strongly a shopper's keenness moves her chance to buy, and her purchases before the experiment. */
const KEENNESS_WEIGHT = 1;
/** The spread of return habits between shoppers, on the logit scale. */
const HABIT_SPREAD = 1;

export function drawShopper(random: () => number): Shopper {
  return { keenness: normal(random), habit: HABIT_SPREAD * normal(random) };
}

/** Her purchases before the experiment: more for a keener buyer (CUPED's covariate). */
export function priorPurchases(random: () => number, shopper: Shopper): number {
  return poisson(random, 1.5 * Math.exp(0.7 * KEENNESS_WEIGHT * shopper.keenness));
}

/** What she does in an arm: the lines she buys, each with whether it comes back for size. */
export function behave(random: () => number, shopper: Shopper, truth: ArmTruth): boolean[] {
  const buys = random() < logistic(logit(truth.conversion) + KEENNESS_WEIGHT * shopper.keenness - meanShift(truth.conversion));
  if (!buys) return [];
  const lines = random() < 0.7 ? 1 : 2;
  const returns = logistic(logit(truth.sizeReturn) + shopper.habit - meanShift(truth.sizeReturn, HABIT_SPREAD));
  return Array.from({ length: lines }, () => random() < returns);
}

/**
 * The shift on the logit scale that keeps the mean chance over shoppers at `p` despite their spread (`spread` = the
 * standard deviation of the added normal): by the probit approximation, E[logistic(a + s·Z)] ≈ logistic(a / √(1 + π s²/8)),
 * so solving for a keeps the arm's rate the truth says, which is what its lift is scored against.
 */
function meanShift(p: number, spread = KEENNESS_WEIGHT): number {
  const target = logit(p);
  const a = target * Math.sqrt(1 + (Math.PI * spread * spread) / 8);
  return target - a;
}

/** The true rates of an arm, over shoppers (numerically: the mean over many drawn shoppers, for the report). */
export function trueRates(truth: ArmTruth, samples = 200_000, seed = 7): { conversion: number; sizeReturn: number } {
  const random = generator(seed);
  let bought = 0;
  let lines = 0;
  let returned = 0;
  for (let i = 0; i < samples; i++) {
    const shopper = drawShopper(random);
    const buys = logistic(logit(truth.conversion) + KEENNESS_WEIGHT * shopper.keenness - meanShift(truth.conversion));
    const returns = logistic(logit(truth.sizeReturn) + shopper.habit - meanShift(truth.sizeReturn, HABIT_SPREAD));
    bought += buys;
    // lines per buyer: 1.3 on average, whatever she is like
    lines += buys * 1.3;
    returned += buys * 1.3 * returns;
  }
  return { conversion: bought / samples, sizeReturn: returned / lines };
}
