import type { Zone } from './types.js';

/**
 * Plausibility limits of a shopper's answers (cm, kg, years): outside them the answer is impossible and the HTTP layer
 * refuses it with a 400 instead of recommending from it. Generous on purpose: they reject typos and unit mix-ups, not
 * unusual bodies.
 */
export const ANSWER_LIMITS = {
  height: { min: 100, max: 230 },
  weight: { min: 30, max: 250 },
  age: { min: 13, max: 100 },
} as const satisfies Record<'height' | 'weight' | 'age', { min: number; max: number }>;

/** Body measurements no adult or teenager has outside these bounds (cm, body measurements, not garments). */
export const ZONE_LIMITS: Readonly<Record<Zone, { readonly min: number; readonly max: number }>> = {
  chest: { min: 50, max: 200 },
  waist: { min: 40, max: 200 },
  hip: { min: 50, max: 200 },
  inseam: { min: 40, max: 110 },
  neck: { min: 20, max: 70 },
  sleeve: { min: 40, max: 110 },
  foot_length: { min: 12, max: 40 },
  head: { min: 40, max: 70 },
  thigh: { min: 30, max: 110 },
};

/**
 * Standard deviation (cm) of a shopper's own tape measurement around the true value: a self-measured girth is off by
 * about 1.5 cm, a neck or head by about 1 cm, a foot traced on paper by about 0.5 cm.
 */
export const ANSWER_SD_CM: Readonly<Record<Zone, number>> = {
  chest: 1.5,
  waist: 1.5,
  hip: 1.5,
  inseam: 1.5,
  neck: 1.0,
  sleeve: 1.5,
  foot_length: 0.5,
  head: 1.0,
  thigh: 1.5,
};

/**
 * How a zone's answer may have been measured: with a tape (the default, ANSWER_SD_CM), or, for the chest, read from
 * the bra size she wears (band plus cup, converted by the integrator or the widget). A bra size is a coarse measure of
 * the bust: among RentTheRunway customers who found one size a fit, the bust read from their bra size spreads over
 * 3.6–4.2 cm, of which a size's own range explains about 1.5 cm; 3.5 cm is the rest.
 */
export const MEASUREMENT_METHODS = ['tape', 'bra_size'] as const;
export type MeasurementMethod = (typeof MEASUREMENT_METHODS)[number];
export const BRA_SIZE_SD_CM = 3.5;
