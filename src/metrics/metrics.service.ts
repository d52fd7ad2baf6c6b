import { Injectable } from '@nestjs/common';
import type { Store } from '../stores/store.entity.js';
import { CAVEATS } from './caveats.js';
import { NO_COUNTS, rates, readRange, utcDays } from './cohort.js';
import type { DailyMetricsResponse, MetricsCounts, MetricsQuery, MetricsResponse } from './dto/metrics.dto.js';
import { type CountsRow, MetricsRepository } from './metrics.repository.js';

/** Descriptive cohort metrics, exactly as docs/decisions/004-events-and-metrics.md defines them. */
@Injectable()
export class MetricsService {
  constructor(private readonly metrics: MetricsRepository) {}

  async summary(store: Store, query: MetricsQuery): Promise<MetricsResponse> {
    const observedThrough = new Date();
    const range = readRange(query, observedThrough);
    const [row] = await this.metrics.total(store, range, observedThrough);
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
    const rows = await this.metrics.daily(store, range, observedThrough);
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
