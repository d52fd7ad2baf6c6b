import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Store } from '../stores/store.entity.js';
import { CAVEATS, NO_COUNTS, type Range, rates, readRange, utcDays } from './cohort.js';
import type { DailyMetricsResponse, MetricsCounts, MetricsQuery, MetricsResponse } from './dto/metrics.dto.js';

type CountsRow = { [K in keyof MetricsCounts]: number } & { day: string | null };

/**
 * One statement over the cohort: sessions by their `(store_id, created_at)` index, purchased lines by the
 * `session_lines` summary's `(store_id, session_created_at)` index (see docs/metrics.md). `day` is the UTC day of
 * session creation, or one group for the whole range.
 */
function cohortQuery(byDay: boolean): string {
  const day = (column: string) => (byDay ? `((${column} AT TIME ZONE 'UTC')::date)::text` : 'NULL::text');
  return `
    WITH sessions_by_day AS (
      SELECT ${day('s.created_at')} AS day,
             count(*)::int AS started_sessions,
             count(s.recommended_at)::int AS recommended_sessions,
             (count(*) FILTER (WHERE s.outcome = 'accepted'))::int AS accepted_sessions,
             (count(*) FILTER (WHERE s.outcome = 'overridden'))::int AS overridden_sessions
        FROM sessions s
       WHERE s.store_id = $1 AND s.created_at >= $2 AND s.created_at < $3
       GROUP BY 1
    ), links AS MATERIALIZED (
      SELECT ${day('l.session_created_at')} AS day, l.session_id, l.order_id, l.line_item_id,
             l.size_returned_at <= $4 AS size_returned, l.kept_at <= $4 AS kept,
             l.size_exchanged_at <= $4 AS size_exchanged
        FROM session_lines l
        JOIN sessions s ON s.id = l.session_id
       WHERE l.store_id = $1 AND l.session_created_at >= $2 AND l.session_created_at < $3 AND l.purchased_at <= $4
         AND s.store_id = $1 AND s.created_at >= $2 AND s.created_at < $3 AND s.recommended_at IS NOT NULL
    ), lines AS (
      SELECT day, bool_or(size_returned) AS size_returned, bool_or(kept) AS kept, bool_or(size_exchanged) AS size_exchanged
        FROM links
       GROUP BY day, order_id, line_item_id
    ), lines_by_day AS (
      SELECT day,
             count(*)::int AS purchased_lines,
             (count(*) FILTER (WHERE size_returned))::int AS size_returned_lines,
             (count(*) FILTER (WHERE kept))::int AS kept_lines,
             (count(*) FILTER (WHERE size_exchanged))::int AS size_exchanged_lines
        FROM lines
       GROUP BY day
    ), converted_by_day AS (
      SELECT day, count(DISTINCT session_id)::int AS converted_sessions FROM links GROUP BY day
    )
    SELECT s.*,
           coalesce(c.converted_sessions, 0) AS converted_sessions,
           coalesce(l.purchased_lines, 0) AS purchased_lines,
           coalesce(l.size_returned_lines, 0) AS size_returned_lines,
           coalesce(l.kept_lines, 0) AS kept_lines,
           coalesce(l.size_exchanged_lines, 0) AS size_exchanged_lines
      FROM sessions_by_day s
      LEFT JOIN converted_by_day c ON c.day IS NOT DISTINCT FROM s.day
      LEFT JOIN lines_by_day l ON l.day IS NOT DISTINCT FROM s.day`;
}

const TOTAL = cohortQuery(false);
const DAILY = cohortQuery(true);

/** Descriptive cohort metrics, exactly as docs/decisions/004-events-and-metrics.md defines them. */
@Injectable()
export class MetricsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async summary(store: Store, query: MetricsQuery): Promise<MetricsResponse> {
    const observedThrough = new Date();
    const range = readRange(query, observedThrough);
    const [row] = await this.counts(TOTAL, store, range, observedThrough);
    const counts = row ? toCounts(row) : NO_COUNTS;
    return {
      store_id: store.id,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      observed_through: observedThrough.toISOString(),
      counts,
      rates: rates(counts),
      caveats: [...CAVEATS],
    };
  }

  async daily(store: Store, query: MetricsQuery): Promise<DailyMetricsResponse> {
    const observedThrough = new Date();
    const range = readRange(query, observedThrough);
    const rows = await this.counts(DAILY, store, range, observedThrough);
    const byDay = new Map(rows.map((row) => [row.day, toCounts(row)]));
    return {
      store_id: store.id,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      observed_through: observedThrough.toISOString(),
      days: utcDays(range).map((day) => {
        const counts = byDay.get(day.date) ?? NO_COUNTS;
        return { date: day.date, from: day.from.toISOString(), to: day.to.toISOString(), counts, rates: rates(counts) };
      }),
      caveats: [...CAVEATS],
    };
  }

  private counts(sql: string, store: Store, range: Range, observedThrough: Date): Promise<CountsRow[]> {
    return this.dataSource.query(sql, [
      store.id,
      range.from.toISOString(),
      range.to.toISOString(),
      observedThrough.toISOString(),
    ]);
  }
}

function toCounts(row: CountsRow): MetricsCounts {
  return {
    started_sessions: row.started_sessions,
    recommended_sessions: row.recommended_sessions,
    accepted_sessions: row.accepted_sessions,
    overridden_sessions: row.overridden_sessions,
    converted_sessions: row.converted_sessions,
    purchased_lines: row.purchased_lines,
    size_returned_lines: row.size_returned_lines,
    kept_lines: row.kept_lines,
    size_exchanged_lines: row.size_exchanged_lines,
  };
}
