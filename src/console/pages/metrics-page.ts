import type { FieldError } from '../../common/problems/problem-error.js';
import type { DailyMetricsResponse, MetricsCounts, MetricsRates, MetricsResponse } from '../../metrics/dto/metrics.dto.js';
import type { Store } from '../../stores/store.entity.js';
import { html, type Html, jsonScript } from '../html.js';
import { errorSummary, fieldError, invalidAttributes, layout, type PageContext } from './layout.js';

/** The seven rates, as the console names them, with the counts each divides. */
const RATES: ReadonlyArray<{
  readonly rate: keyof MetricsRates;
  readonly label: string;
  readonly numerator: keyof MetricsCounts;
  readonly denominator: keyof MetricsCounts;
  readonly of: string;
}> = [
  {
    rate: 'quiz_completion',
    label: 'Quiz completion',
    numerator: 'recommended_sessions',
    denominator: 'started_sessions',
    of: 'sessions started',
  },
  {
    rate: 'recommendation_acceptance',
    label: 'Recommendation accepted',
    numerator: 'accepted_sessions',
    denominator: 'recommended_sessions',
    of: 'recommended sessions',
  },
  {
    rate: 'recommendation_override',
    label: 'Recommendation overridden',
    numerator: 'overridden_sessions',
    denominator: 'recommended_sessions',
    of: 'recommended sessions',
  },
  {
    rate: 'fit_assisted_conversion',
    label: 'Fit-assisted conversion',
    numerator: 'converted_sessions',
    denominator: 'recommended_sessions',
    of: 'recommended sessions',
  },
  {
    rate: 'size_related_return',
    label: 'Returned for size',
    numerator: 'size_returned_lines',
    denominator: 'purchased_lines',
    of: 'purchased lines',
  },
  { rate: 'kept_after_recommendation', label: 'Kept', numerator: 'kept_lines', denominator: 'purchased_lines', of: 'purchased lines' },
  {
    rate: 'exchange_for_size',
    label: 'Exchanged for size',
    numerator: 'size_exchanged_lines',
    denominator: 'purchased_lines',
    of: 'purchased lines',
  },
];

/** The daily counts the chart draws, in this order. */
const CHART_SERIES: ReadonlyArray<{ readonly count: keyof MetricsCounts; readonly label: string }> = [
  { count: 'started_sessions', label: 'Sessions started' },
  { count: 'recommended_sessions', label: 'Recommended' },
  { count: 'converted_sessions', label: 'Converted' },
  { count: 'size_returned_lines', label: 'Lines returned for size' },
];

interface MetricsPage {
  readonly store: Store;
  /** The range as typed: UTC dates, `to` inclusive. */
  readonly from: string;
  readonly to: string;
  readonly errors: readonly FieldError[];
  readonly summary?: MetricsResponse;
  readonly daily?: DailyMetricsResponse;
}

export function metricsPage(context: PageContext, page: MetricsPage): Html {
  const { store, errors } = page;
  return layout(
    context,
    {
      title: `${store.name} metrics`,
      invalid: errors.length > 0,
      chart: true,
      breadcrumbs: [
        { label: 'Stores', href: '/console' },
        { label: store.name, href: `/console/stores/${store.id}` },
        { label: 'Metrics' },
      ],
    },
    html`<h1>Metrics</h1>
${errorSummary(errors, { from: 'from', to: 'to' })}
<form method="get" action="/console/stores/${store.id}/metrics" class="range">
  <div><label for="from">Sessions from</label>
  <input id="from" name="from" type="date" required value="${page.from}"${invalidAttributes(errors, 'from')}>${fieldError(errors, 'from')}</div>
  <div><label for="to">through</label>
  <input id="to" name="to" type="date" required value="${page.to}"${invalidAttributes(errors, 'to')}>${fieldError(errors, 'to')}</div>
  <button type="submit" class="primary">Show</button>
</form>
${page.summary && page.daily ? figures(page.summary, page.daily) : ''}`,
  );
}

function figures(summary: MetricsResponse, daily: DailyMetricsResponse): Html {
  const last = new Date(Date.parse(summary.to) - 1).toISOString().slice(0, 10);
  return html`<p class="muted small">Cohort: the sessions created from ${summary.from.slice(0, 10)} through ${last} (UTC days).
  Outcomes observed through ${summary.observed_through.slice(0, 16).replace('T', ' ')} UTC.</p>
<section class="card">
  <h2>Rates</h2>
  <div class="table-wrap"><table id="rates">
    <thead><tr><th>Metric</th><th class="num">Rate</th><th>Counts</th></tr></thead>
    <tbody>${RATES.map(({ rate, label, numerator, denominator, of }) => {
      const value = summary.rates[rate];
      return html`<tr data-rate="${rate}" data-value="${value === null ? '' : String(value)}" data-numerator="${summary.counts[numerator]}" data-denominator="${summary.counts[denominator]}">
      <th scope="row">${label}</th>
      <td class="num"><strong>${percent(value)}</strong>${value === null ? '' : html`<meter min="0" max="1" value="${String(value)}">${percent(value)}</meter>`}</td>
      <td class="counts muted">${summary.counts[numerator]} of ${summary.counts[denominator]} ${of}</td>
    </tr>`;
    })}</tbody>
  </table></div>
</section>
<section class="card">
  <h2>By day of session start</h2>
  <div id="daily-chart" class="chart" role="img" aria-label="Daily counts: ${CHART_SERIES.map((series) => series.label).join(', ')}" hidden></div>
  <script type="application/json" id="daily-data">${jsonScript({
    dates: daily.days.map((day) => day.date),
    series: CHART_SERIES.map((series) => ({ label: series.label, values: daily.days.map((day) => day.counts[series.count]) })),
  })}</script>
  <details id="daily-table" open>
    <summary>Daily table</summary>
    <div class="table-wrap"><table id="daily">
      <thead><tr><th>Day (UTC)</th>${CHART_SERIES.map((series) => html`<th class="num">${series.label}</th>`)}<th class="num">Purchased lines</th></tr></thead>
      <tbody>${daily.days.map(
        (day) =>
          html`<tr data-date="${day.date}"><th scope="row">${day.date}</th>${CHART_SERIES.map(
            (series) => html`<td class="num">${day.counts[series.count]}</td>`,
          )}<td class="num">${day.counts.purchased_lines}</td></tr>`,
      )}</tbody>
    </table></div>
  </details>
</section>
<section class="card caveats">
  <h2>Read these figures with care</h2>
  <ul id="caveats">${summary.caveats.map((caveat) => html`<li>${caveat}</li>`)}</ul>
</section>`;
}

function percent(value: number | null): string {
  if (value === null) return '–';
  return `${(value * 100).toFixed(1).replace(/\.0$/, '')} %`;
}
