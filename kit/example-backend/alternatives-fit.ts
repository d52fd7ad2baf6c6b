/**
 * How the other sizes would fit, zone by zone, for the shopper's measurements: the service answers the per-zone fit of
 * the recommended size only, and a shopper weighing the runner-up wants to know why it came second ("L: looser at the
 * waist"). Read off the chart's body ranges as the engine reads a regular fit: above the range too small; in its
 * upper quarter snug, lower quarter loose, else regular; below it loose, and too large past a whole range below.
 * A garment chart has no body ranges: its alternatives keep no `fit`.
 */
import type { Schemas } from '../client/size-fit.js';
import type { ChartSize } from './catalog-map.js';

type Recommendation = Schemas['RecommendationResponse'];
type Alternative = Recommendation['alternatives'][number] & { fit?: Record<string, string> };

export function alternativesFit(recommendation: Recommendation, sizes: readonly ChartSize[]): Alternative[] {
  const zones = Object.keys(recommendation.fit);
  return recommendation.alternatives.map((alternative) => {
    const ranges = sizes.find((size) => size.label === alternative.size_label)?.bodyCm ?? {};
    const fit: Record<string, string> = {};
    for (const zone of zones) {
      const range = ranges[zone];
      const measured = recommendation.measurements[zone]?.value_cm;
      if (range !== undefined && measured !== undefined) fit[zone] = verdict(measured, range.min, range.max);
    }
    return Object.keys(fit).length ? { ...alternative, fit } : alternative;
  });
}

function verdict(x: number, lo: number, hi: number): string {
  const width = hi - lo;
  if (x > hi) return 'too_small';
  if (x < lo) return lo - x > Math.max(width, 1) ? 'too_large' : 'loose';
  if (!(width > 0)) return 'regular';
  const t = (x - lo) / width;
  return t > 0.75 ? 'snug' : t < 0.25 ? 'loose' : 'regular';
}
