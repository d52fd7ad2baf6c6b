import { createHash } from 'node:crypto';
import type { Arm } from './experiment.entity.js';

/** 2⁴⁸: the first six bytes of a digest, read as a whole number, over this, are uniform on [0, 1). */
const SPAN = 2 ** 48;

/**
 * The arm of a unit: SHA-256 of the experiment's salt and the unit's digest, read as a number in [0, 1), falls in one
 * arm's share of the line. Deterministic, so a unit gets its arm again on any device the integrator links to it and
 * without reading what was recorded; independent across experiments, each with its own random salt.
 */
export function armOf(arms: readonly Arm[], salt: Buffer, unit: Buffer): Arm {
  const point = createHash('sha256').update(salt).update(unit).digest().readUIntBE(0, 6) / SPAN;
  let edge = 0;
  for (const arm of arms) {
    edge += arm.share;
    if (point < edge) return arm;
  }
  return arms[arms.length - 1];
}
