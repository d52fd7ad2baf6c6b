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
  /** Whether a higher rate is the better one: the meter is coloured for it, and the row says so. */
  readonly better: 'higher' | 'lower';
}> = [
  {
    rate: 'quiz_completion',
    better: 'higher',
    label: 'Quiz completion',
    numerator: 'recommended_sessions',
    denominator: 'started_sessions',
    of: 'sessions started',
  },
  {
    rate: 'recommendation_acceptance',
    better: 'higher',
    label: 'Recommendation accepted',
    numerator: 'accepted_sessions',
    denominator: 'recommended_sessions',
    of: 'recommended sessions',
  },
  {
    rate: 'recommendation_override',
    better: 'lower',
    label: 'Recommendation overridden',
    numerator: 'overridden_sessions',
    denominator: 'recommended_sessions',
    of: 'recommended sessions',
  },
  {
    rate: 'fit_assisted_conversion',
    better: 'higher',
    label: 'Fit-assisted conversion',
    numerator: 'converted_sessions',
    denominator: 'recommended_sessions',
    of: 'recommended sessions',
  },
  {
    rate: 'size_related_return',
    better: 'lower',
    label: 'Returned for size',
    numerator: 'size_returned_lines',
    denominator: 'purchased_lines',
    of: 'purchased lines',
  },
  {
    rate: 'kept_after_recommendation',
    label: 'Kept',
    numerator: 'kept_lines',
    denominator: 'purchased_lines',
    of: 'purchased lines',
    better: 'higher',
  },
  {
    rate: 'exchange_for_size',
    better: 'lower',
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

/** The API's caveats, said without its field names: matched by their first words, any other shown as the API says it. */
const PLAIN_CAVEATS: ReadonlyArray<readonly [string, string]> = [
  [
    'These figures are descriptive',
    'These figures tell what happened in the fit sessions of these days. They do not show what the size help caused.',
  ],
  [
    'Causal claims',
    'To learn what the size help changes (more sales, fewer returns), compare with shoppers chosen at random who were not offered it.',
  ],
  [
    'Return and kept windows',
    'Recent purchases can still be returned, exchanged or kept: the last days’ return and kept rates may still change.',
  ],
  [
    'Missing integration events',
    'What your shop does not send is not counted: a purchase sent without its fit session, or a return, exchange or kept item never sent, leaves the rates wrong.',
  ],
  [
    'Several outcomes can apply',
    'One order line can count more than once over time: returned for size, say, and later kept after an exchange.',
  ],
  ['Counts are unique', 'Counts are fit sessions and order lines, not items: a line of three identical shirts counts once.'],
];

const plainCaveat = (caveat: string): string => PLAIN_CAVEATS.find(([start]) => caveat.startsWith(start))?.[1] ?? caveat;

/** The meter's ranges: green where the rate is good, amber in between, red where it is poor. */
const meterBounds = (better: 'higher' | 'lower') =>
  better === 'higher' ? html` low="0.3" high="0.6" optimum="1"` : html` low="0.1" high="0.25" optimum="0"`;

function figures(summary: MetricsResponse, daily: DailyMetricsResponse): Html {
  const last = new Date(Date.parse(summary.to) - 1).toISOString().slice(0, 10);
  const empty = summary.counts.started_sessions === 0;
  return html`<p class="muted small">Fit sessions started from ${summary.from.slice(0, 10)} through ${last} (UTC days). Purchases,
  returns and kept items are counted up to ${summary.observed_through.slice(0, 16).replace('T', ' ')} UTC.</p>
${
  empty
    ? html`<section class="card notice" data-empty="metrics">
  <h2>No fit sessions in these days</h2>
  <p>Figures appear once your shop sends them. Send first a <strong>fit session</strong> when a shopper opens the size
  help on a product page; then, when they buy, a <strong>purchase</strong> naming that session; later, returns,
  exchanges and kept items for the same order lines.</p>
  <p class="muted small">For developers: <code>POST …/sessions</code>, then <code>POST …/events</code> with
  <code>session_id</code>; the API reference lists the event types.</p>
</section>`
    : ''
}
<section class="card">
  <h2>Rates</h2>
  <div class="table-wrap"><table id="rates">
    <thead><tr><th>Metric</th><th class="num">Rate</th><th>Counts</th></tr></thead>
    <tbody>${RATES.map(({ rate, label, numerator, denominator, of, better }) => {
      const value = summary.rates[rate];
      return html`<tr data-rate="${rate}" data-better="${better}" data-value="${value === null ? '' : String(value)}" data-numerator="${summary.counts[numerator]}" data-denominator="${summary.counts[denominator]}">
      <th scope="row">${label} <span class="muted small better">(${better} is better)</span></th>
      <td class="num"><strong>${percent(value)}</strong>${value === null ? '' : html`<meter min="0" max="1"${meterBounds(better)} value="${String(value)}">${percent(value)}</meter>`}</td>
      <td class="counts muted">${summary.counts[numerator]} of ${summary.counts[denominator]} ${of}</td>
    </tr>`;
    })}</tbody>
  </table></div>
</section>
<section class="card">
  <h2>By day of session start</h2>
  <p class="muted small">One small chart per count, each on its own scale, so that a small count is not flattened by a large one.</p>
  <div id="daily-chart" class="chart multiples" role="img" aria-label="Daily counts, one chart each: ${CHART_SERIES.map((series) => series.label).join(', ')}" hidden></div>
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
<details class="card caveats" id="caveats-card">
  <summary>Read these figures with care</summary>
  <ul id="caveats">${summary.caveats.map((caveat) => html`<li>${plainCaveat(caveat)}</li>`)}</ul>
</details>`;
}

function percent(value: number | null): string {
  if (value === null) return '–';
  return `${(value * 100).toFixed(1).replace(/\.0$/, '')} %`;
}
