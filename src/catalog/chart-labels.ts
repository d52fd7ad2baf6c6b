import type { EntityManager } from 'typeorm';
import { ProblemError } from '../common/problems/problem-error.js';
import { SizeChart } from './catalog.entities.js';

/**
 * Refuses a `size_label` that is not a label of the chart (400 `unknown_size`). The chart is locked so that a
 * concurrent chart edit dropping this label waits for the caller's write (and then refuses), or wins.
 */
export async function requireChartLabel(manager: EntityManager, chartId: string, label: string): Promise<void> {
  const chart = await manager.findOneOrFail(SizeChart, { where: { id: chartId }, lock: { mode: 'for_key_share' } });
  if (!chart.sizes.some((size) => size.label === label)) {
    const labels = chart.sizes.map((size) => size.label).join(', ');
    throw ProblemError.field('size_label', 'unknown_size', `size_label must be a label of the chart: ${labels}`);
  }
}
