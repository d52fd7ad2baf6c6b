import { ProblemError } from '../common/problems/problem-error.js';
import type { SizeChart } from './catalog.entities.js';

/**
 * Refuses a `size_label` that is not a label of the chart (400 `unknown_size`). Read the chart locked (`FOR KEY
 * SHARE`, the repositories' `lockLabels`) so that a concurrent chart edit dropping this label waits for the caller's
 * write (and then refuses), or wins.
 */
export function requireChartLabel(chart: Pick<SizeChart, 'sizes'>, label: string): void {
  if (!chart.sizes.some((size) => size.label === label)) {
    const labels = chart.sizes.map((size) => size.label).join(', ');
    throw ProblemError.field('size_label', 'unknown_size', `size_label must be a label of the chart: ${labels}`);
  }
}
