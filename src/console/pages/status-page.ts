import type { Store } from '../../stores/store.entity.js';
import { html, type Html } from '../html.js';
import type { Refusal } from '../status/recent-refusals.js';
import { layout, type PageContext } from './layout.js';

/** Each event type as a merchant would say it, and who sends it. */
const EVENT_WORDS: Readonly<Record<string, { readonly label: string; readonly by: 'your shop' | 'Size-Fit' }>> = {
  fit_started: { label: 'A shopper opened the size help (a fit session)', by: 'Size-Fit' },
  fit_completed: { label: 'A shopper answered the questions', by: 'Size-Fit' },
  recommendation_generated: { label: 'A size was recommended', by: 'Size-Fit' },
  recommendation_accepted: { label: 'The recommended size was chosen', by: 'Size-Fit' },
  recommendation_overridden: { label: 'Another size was chosen', by: 'Size-Fit' },
  fit_viewed: { label: 'The size help was shown on a product page', by: 'your shop' },
  add_to_cart: { label: 'Added to the cart', by: 'your shop' },
  checkout_started: { label: 'Checkout started', by: 'your shop' },
  purchase: { label: 'Purchase', by: 'your shop' },
  return_requested: { label: 'Return', by: 'your shop' },
  size_exchange: { label: 'Exchange for another size', by: 'your shop' },
  item_kept: { label: 'Kept (the return window closed)', by: 'your shop' },
};

interface StatusPage {
  readonly store: Store;
  readonly activity: ReadonlyArray<{ readonly type: string; readonly last_at: Date | null; readonly today: number }>;
  /** How far back "last received" looks, in days. */
  readonly lookBackDays: number;
  readonly refusals: readonly Refusal[];
  /** Since when this instance keeps refusals. */
  readonly refusalsSince: Date;
  readonly now: Date;
}

const time = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** How long ago, as a person says it. */
function ago(at: Date, now: Date): string {
  const minutes = Math.max(0, Math.round((now.getTime() - at.getTime()) / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/** Whether the store's integration works: what arrived, when, today's counts, and what was refused lately. */
export function statusPage(context: PageContext, page: StatusPage): Html {
  const { store, activity, now } = page;
  const count = (type: string) => activity.find((row) => row.type === type)?.today ?? 0;
  const fromShop = activity.filter((row) => EVENT_WORDS[row.type]?.by === 'your shop');
  const lastFromShop = fromShop
    .map((row) => row.last_at)
    .filter((at): at is Date => at !== null)
    .sort((a, b) => b.getTime() - a.getTime())[0];
  const sessionsEver = activity.some((row) => row.type === 'fit_started' && row.last_at !== null);
  const verdict: { state: string; text: string } =
    page.refusals.length > 0 && now.getTime() - page.refusals[0].at.getTime() < 3_600_000
      ? { state: 'refusing', text: 'Requests were refused in the last hour: see what the service answered below.' }
      : !sessionsEver && !lastFromShop
        ? {
            state: 'silent',
            text: `Nothing has arrived in the last ${page.lookBackDays} days. Send first a fit session when a shopper opens the size help; then purchases.`,
          }
        : !lastFromShop
          ? {
              state: 'partial',
              text: 'Fit sessions arrive, but your shop has sent no event: send purchases (with their session), returns and kept items.',
            }
          : { state: 'working', text: `Working: your shop’s latest event arrived ${ago(lastFromShop, now)}.` };
  return layout(
    context,
    {
      title: `${store.name}: integration status`,
      breadcrumbs: [{ label: 'Stores', href: '/console' }, { label: store.name, href: `/console/stores/${store.id}` }, { label: 'Status' }],
    },
    html`<h1>Integration status</h1>
<section class="card ${verdict.state === 'working' ? 'notice' : 'warning'}" id="verdict" data-state="${verdict.state}" role="status">
  <p>${verdict.text}</p>
</section>
<section class="card" id="today">
  <h2>Today <span class="muted small">(since 00:00 UTC)</span></h2>
  <p class="figures"><span data-count="sessions"><strong>${count('fit_started')}</strong> ${count('fit_started') === 1 ? 'fit session' : 'fit sessions'}</span>
  <span data-count="purchases"><strong>${count('purchase')}</strong> ${count('purchase') === 1 ? 'purchase' : 'purchases'}</span></p>
</section>
<section class="card" id="events">
  <h2>Last event of each kind</h2>
  <div class="table-wrap" role="region" aria-label="Last event of each kind" tabindex="0"><table>
    <thead><tr><th scope="col">Event</th><th scope="col">Sent by</th><th scope="col">Last received</th><th scope="col" class="num">Today</th></tr></thead>
    <tbody>${activity.map(
      (row) => html`<tr data-type="${row.type}" data-last="${row.last_at ? row.last_at.toISOString() : ''}">
      <th scope="row">${EVENT_WORDS[row.type]?.label ?? row.type} <span class="muted small"><code>${row.type}</code></span></th>
      <td>${EVENT_WORDS[row.type]?.by ?? ''}</td>
      <td>${row.last_at ? html`${ago(row.last_at, now)} <span class="muted small">${time(row.last_at)}</span>` : html`<span class="muted">none in ${page.lookBackDays} days</span>`}</td>
      <td class="num">${row.today}</td>
    </tr>`,
    )}</tbody>
  </table></div>
</section>
<section class="card" id="refusals">
  <h2>Refused requests</h2>
  <p class="muted small">The last 20 requests to this store’s API that the service refused, newest first, kept since
  ${time(page.refusalsSince)} by this server (a restart forgets them; with several servers, each shows its own).</p>
  ${
    page.refusals.length === 0
      ? html`<p class="empty" data-empty="refusals">None refused.</p>`
      : html`<div class="table-wrap" role="region" aria-label="Refused requests" tabindex="0"><table>
    <thead><tr><th scope="col">When</th><th scope="col">Request</th><th scope="col">Answer</th><th scope="col">Why</th></tr></thead>
    <tbody>${page.refusals.map(
      (refusal) => html`<tr data-code="${refusal.code}" data-status="${String(refusal.status)}">
      <td>${ago(refusal.at, now)} <span class="muted small">${time(refusal.at)}</span></td>
      <td><code>${refusal.method} ${refusal.route}</code></td>
      <td>${refusal.status} <a href="/problems/${refusal.code}"><code>${refusal.code}</code></a></td>
      <td>${refusal.message} <span class="muted small">request ${refusal.requestId}</span></td>
    </tr>`,
    )}</tbody>
  </table></div>`
  }
</section>`,
  );
}
