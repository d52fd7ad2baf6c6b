import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Store } from '../stores/store.entity.js';
import type { Range } from './cohort.js';
import type { MetricsCounts } from './dto/metrics.dto.js';

export type CountsRow = { [K in keyof MetricsCounts]: number } & { day: string | null };

/**
 * One statement, index-only range scans (see docs/metrics.md): the cohort's sessions through `sessions_cohort_idx`
 * (started, recommended, accepted, overridden, and converted from `first_purchased_at`), and their purchased lines
 * through the two partial indexes of `session_lines`: a line linked to one session only is counted by its row, a line
 * linked to several (`shared`, rare) by a distinct count. `day` is the UTC day of session creation, or one group for
 * the whole range.
 */
function cohortQuery(byDay: boolean): string {
  // Grouped by the UTC midnight (cheap per row); only the final groups are spelled as dates.
  const day = (column: string) => (byDay ? `date_bin('1 day', ${column}, TIMESTAMPTZ '2000-01-01 00:00:00+00')` : 'NULL::timestamptz');
  const linksOfCohort = `
        FROM events_session_lines l
       WHERE l.store_id = $1 AND l.session_created_at >= $2 AND l.session_created_at < $3
         AND l.session_recommended AND l.purchased_at <= $4`;
  return `
    WITH sessions_by_day AS (
      SELECT ${day('s.created_at')} AS day,
             count(*)::int AS started_sessions,
             count(s.recommended_at)::int AS recommended_sessions,
             (count(*) FILTER (WHERE s.outcome = 'accepted'))::int AS accepted_sessions,
             (count(*) FILTER (WHERE s.outcome = 'overridden'))::int AS overridden_sessions,
             (count(*) FILTER (WHERE s.recommended_at IS NOT NULL AND s.first_purchased_at <= $4))::int
               AS converted_sessions
        FROM fit_sessions s
       WHERE s.store_id = $1 AND s.created_at >= $2 AND s.created_at < $3
       GROUP BY 1
    ), single_lines AS (
      SELECT ${day('l.session_created_at')} AS day,
             count(*)::int AS purchased_lines,
             (count(*) FILTER (WHERE l.size_returned_at <= $4))::int AS size_returned_lines,
             (count(*) FILTER (WHERE l.kept_at <= $4))::int AS kept_lines,
             (count(*) FILTER (WHERE l.size_exchanged_at <= $4))::int AS size_exchanged_lines
        ${linksOfCohort} AND NOT l.shared
       GROUP BY 1
    ), shared_lines AS (
      SELECT day,
             count(*)::int AS purchased_lines,
             (count(*) FILTER (WHERE size_returned))::int AS size_returned_lines,
             (count(*) FILTER (WHERE kept))::int AS kept_lines,
             (count(*) FILTER (WHERE size_exchanged))::int AS size_exchanged_lines
        FROM (SELECT ${day('l.session_created_at')} AS day,
                     bool_or(l.size_returned_at <= $4) AS size_returned,
                     bool_or(l.kept_at <= $4) AS kept,
                     bool_or(l.size_exchanged_at <= $4) AS size_exchanged
                ${linksOfCohort} AND l.shared
               GROUP BY 1, l.order_id, l.line_item_id) AS lines
       GROUP BY day
    )
    SELECT to_char(s.day AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
           s.started_sessions, s.recommended_sessions, s.accepted_sessions, s.overridden_sessions,
           s.converted_sessions,
           coalesce(a.purchased_lines, 0) + coalesce(b.purchased_lines, 0) AS purchased_lines,
           coalesce(a.size_returned_lines, 0) + coalesce(b.size_returned_lines, 0) AS size_returned_lines,
           coalesce(a.kept_lines, 0) + coalesce(b.kept_lines, 0) AS kept_lines,
           coalesce(a.size_exchanged_lines, 0) + coalesce(b.size_exchanged_lines, 0) AS size_exchanged_lines
      FROM sessions_by_day s
      LEFT JOIN single_lines a ON a.day IS NOT DISTINCT FROM s.day
      LEFT JOIN shared_lines b ON b.day IS NOT DISTINCT FROM s.day`;
}

const TOTAL = cohortQuery(false);
const DAILY = cohortQuery(true);

/** The cohort's counts, read from `sessions` and `session_lines`, outside any transaction. */
@Injectable()
export class MetricsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One row for the whole range (none when the cohort is empty). */
  total(store: Store, range: Range, observedThrough: Date): Promise<CountsRow[]> {
    return this.counts(TOTAL, store, range, observedThrough);
  }

  /** One row per UTC day of session creation that has sessions. */
  daily(store: Store, range: Range, observedThrough: Date): Promise<CountsRow[]> {
    return this.counts(DAILY, store, range, observedThrough);
  }

  private counts(sql: string, store: Store, range: Range, observedThrough: Date): Promise<CountsRow[]> {
    return this.dataSource.manager.query(sql, [store.id, range.from.toISOString(), range.to.toISOString(), observedThrough.toISOString()]);
  }
}
