import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Experiment, Metric } from './experiment.entity.js';
import type { ArmMoments, MetricMoments } from './statistics.js';

/** What the results read of one arm: its moments, and its buyers and lines. */
interface ArmTotals {
  readonly moments: ArmMoments<Metric>;
  readonly purchasingUnits: number;
  readonly lines: number;
  /** Lines bought less than the return window ago with no outcome yet. */
  readonly openLines: number;
}

/** Per unit: a = its lines with the outcome (or 1 if it bought, for conversion), b = its lines (1 for conversion). */
const OUTCOME_COLUMN: Readonly<Record<Exclude<Metric, 'conversion'>, string>> = {
  size_return_rate: 'returned',
  size_exchange_rate: 'exchanged',
  kept_rate: 'kept',
};

/**
 * Sums over the units of each arm, read in one statement: every exposed unit (intention to treat), the lines it bought
 * of the experiment's products from its exposure on (until the experiment stopped) with the outcomes recorded for them
 * since, and its purchases in the store before the experiment started (CUPED's covariate).
 */
@Injectable()
export class ResultsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async totals(experiment: Experiment, now: Date, windowDays: number): Promise<ArmTotals[]> {
    const sums = (a: string, b: string) =>
      `sum(${a})::float8 AS "${a}_${b}_a", sum(${b})::float8 AS "${a}_${b}_b", sum(${a} * ${a})::float8 AS "${a}_${b}_aa",
       sum(${b} * ${b})::float8 AS "${a}_${b}_bb", sum(${a} * ${b})::float8 AS "${a}_${b}_ab", sum(${a} * prior)::float8 AS "${a}_${b}_ax",
       sum(${b} * prior)::float8 AS "${a}_${b}_bx"`;
    const rows: Record<string, string | number | null>[] = await this.dataSource.query(
      `WITH u AS (SELECT unit_digest, arm, exposed_at FROM experiment_exposures WHERE experiment_id = $1),
            bought AS (
              SELECT u.unit_digest, e.order_id, e.line_item_id, min(e.occurred_at) AS purchased_at
                FROM u JOIN events_order_events e ON e.store_id = $2 AND e.shopper_digest = u.unit_digest
                LEFT JOIN catalog_products p ON p.store_id = $2 AND p.id = e.product_id
               WHERE e.type = 'purchase' AND e.occurred_at >= date_trunc('milliseconds', u.exposed_at)
                 AND ($3::timestamptz IS NULL OR e.occurred_at <= $3)
                 AND (($4::uuid[] IS NULL AND $5::uuid[] IS NULL) OR e.product_id = ANY ($4::uuid[])
                      OR p.product_type_id = ANY ($5::uuid[]))
               GROUP BY u.unit_digest, e.order_id, e.line_item_id),
            per_unit AS (
              SELECT u.arm,
                     (count(b.order_id) > 0)::int AS converted, 1 AS one,
                     count(b.order_id) AS lines,
                     count(*) FILTER (WHERE l.size_returned_at IS NOT NULL) AS returned,
                     count(*) FILTER (WHERE l.size_exchanged_at IS NOT NULL) AS exchanged,
                     count(*) FILTER (WHERE l.kept_at IS NOT NULL) AS kept,
                     count(*) FILTER (WHERE b.purchased_at > $7::timestamptz - make_interval(days => $8)
                                        AND l.size_returned_at IS NULL AND l.size_exchanged_at IS NULL AND l.kept_at IS NULL) AS open,
                     (SELECT count(*) FROM events_order_events q
                       WHERE q.store_id = $2 AND q.shopper_digest = u.unit_digest AND q.type = 'purchase'
                         AND q.occurred_at < $6::timestamptz) AS prior
                FROM u
                LEFT JOIN bought b ON b.unit_digest = u.unit_digest
                LEFT JOIN events_order_lines l ON l.store_id = $2 AND l.order_id = b.order_id AND l.line_item_id = b.line_item_id
               GROUP BY u.arm, u.unit_digest)
       SELECT arm, count(*)::int AS units, sum(converted)::int AS purchasing, sum(lines)::int AS lines, sum(open)::int AS open,
              sum(prior)::float8 AS x, sum(prior * prior)::float8 AS xx,
              ${sums('converted', 'one')}, ${sums('returned', 'lines')}, ${sums('exchanged', 'lines')}, ${sums('kept', 'lines')}
         FROM per_unit GROUP BY arm`,
      [
        experiment.id,
        experiment.storeId,
        experiment.stoppedAt,
        experiment.productIds,
        experiment.productTypeIds,
        experiment.startedAt ?? now,
        now,
        windowDays,
      ],
    );
    const byArm = new Map(rows.map((row) => [row.arm as string, row]));
    return experiment.arms.map((arm) => {
      const row = byArm.get(arm.name);
      const value = (column: string) => Number(row?.[column] ?? 0);
      const moments = (a: string, b: string): MetricMoments => ({
        sumA: value(`${a}_${b}_a`),
        sumB: value(`${a}_${b}_b`),
        sumAA: value(`${a}_${b}_aa`),
        sumBB: value(`${a}_${b}_bb`),
        sumAB: value(`${a}_${b}_ab`),
        covariate: { sumX: value('x'), sumXX: value('xx'), sumAX: value(`${a}_${b}_ax`), sumBX: value(`${a}_${b}_bx`) },
      });
      const metrics = {
        conversion: moments('converted', 'one'),
        ...Object.fromEntries(Object.entries(OUTCOME_COLUMN).map(([metric, column]) => [metric, moments(column, 'lines')])),
      } as Record<Metric, MetricMoments>;
      return {
        moments: { arm: arm.name, units: value('units'), metrics },
        purchasingUnits: value('purchasing'),
        lines: value('lines'),
        openLines: value('open'),
      };
    });
  }
}
