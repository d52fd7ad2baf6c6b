import type { ProductFitItemResponse, ProductFitListResponse, ProductFitResponse } from '../../fit/dto/product-fit.dto.js';
import type { Store } from '../../stores/store.entity.js';
import { html, type Html } from '../html.js';
import { layout, type PageContext } from './layout.js';

/** The columns the table sorts by, and how. */
export const PRODUCT_FIT_SORTS = {
  evidence: { label: 'How sure', order: (a: ProductFitItemResponse, b: ProductFitItemResponse) => strength(b) - strength(a) },
  steps: {
    label: 'How far off',
    order: (a: ProductFitItemResponse, b: ProductFitItemResponse) => b.learned.size_steps - a.learned.size_steps,
  },
  outcomes: {
    label: 'Outcomes learned from',
    order: (a: ProductFitItemResponse, b: ProductFitItemResponse) => b.learned.outcomes - a.learned.outcomes,
  },
  title: { label: 'Product', order: (a: ProductFitItemResponse, b: ProductFitItemResponse) => a.title.localeCompare(b.title) },
} as const;
export type ProductFitSort = keyof typeof PRODUCT_FIT_SORTS;

const strength = (item: ProductFitItemResponse) => Math.abs(item.learned.size_steps) / Math.max(item.learned.sd, 1e-9);

const DIRECTION_LABELS: Record<ProductFitItemResponse['direction'], string> = {
  runs_small: 'Runs small',
  runs_large: 'Runs large',
  true_to_size: 'True to size',
  uncertain: 'Not sure yet',
};

const steps = (value: number) => `${value > 0 ? '+' : ''}${value.toFixed(2)}`;

/**
 * How far a product runs from its chart, in words: `size_steps` is how many sizes up (positive: it runs small) shoppers
 * end up, rounded to what a person would say.
 */
function fitInWords(sizeSteps: number): string {
  const off = Math.abs(sizeSteps);
  const way = sizeSteps > 0 ? 'small' : 'large';
  if (off < 0.15) return 'Fits true to size';
  if (off < 0.35) return `Runs a little ${way}`;
  if (off < 0.75) return `Runs about half a size ${way}`;
  if (off < 1.25) return `Runs about a size ${way}`;
  return `Runs about ${(Math.round(off * 2) / 2).toString()} sizes ${way}`;
}

/** The strength of what was learned, in words: the offset against its uncertainty. */
function sureness(item: ProductFitItemResponse): string {
  const value = strength(item);
  if (item.direction === 'uncertain' || value < 1) return 'not sure yet';
  if (value < 2) return 'fairly sure';
  return 'sure';
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1).replace(/\.0$/, '')} %`);

/** Every product of the store with outcomes, sortable by each column (links, so it works without scripts). */
export function productFitPage(context: PageContext, store: Store, list: ProductFitListResponse, sort: ProductFitSort): Html {
  const items = [...list.data].sort(PRODUCT_FIT_SORTS[sort].order);
  const base = `/console/stores/${store.id}/product-fit`;
  const header = (key: ProductFitSort, numeric = true) =>
    html`<th${numeric ? html` class="num"` : ''} aria-sort="${key === sort ? (key === 'title' ? 'ascending' : 'descending') : 'none'}"><a href="${base}?sort=${key}">${PRODUCT_FIT_SORTS[key].label}</a></th>`;
  return layout(
    context,
    {
      title: `${store.name}: how products fit`,
      breadcrumbs: [
        { label: 'Stores', href: '/console' },
        { label: store.name, href: `/console/stores/${store.id}` },
        { label: 'How products fit' },
      ],
    },
    html`<h1>How products fit</h1>
<p class="muted">Learned from what shoppers kept, returned and exchanged for size in this store: a product that runs small
sends shoppers back for a bigger size. Recommendations already take it into account. “How far off” counts sizes: +0.5 is
half a size small.</p>
<section class="card">
${
  items.length === 0
    ? html`<p id="no-products" data-empty="product-fit">No outcome has taught anything yet. Send what happens after a purchase:
  items kept, and items returned or exchanged because of their size (saying whether they were too small or too large
  when the shopper said so). A product appears here after its first such outcome.</p>`
    : html`<div class="table-wrap" role="region" aria-label="Products by fit" tabindex="0"><table id="product-fit">
    <thead><tr>${header('title', false)}<th>How it fits</th>${header('steps')}${header('outcomes')}${header('evidence', false)}</tr></thead>
    <tbody>${items.map(
      (item) => html`<tr data-product-id="${item.product_id}" data-direction="${item.direction}">
      <th scope="row"><a href="${base}/${item.product_id}">${item.title}</a></th>
      <td class="sentence">${item.direction === 'true_to_size' ? 'Fits true to size' : fitInWords(item.learned.size_steps)}${item.direction === 'uncertain' ? ' (not sure yet)' : ''}</td>
      <td class="num"><span class="visually-hidden">size steps </span>${steps(item.learned.size_steps)}</td>
      <td class="num">${plural(item.learned.outcomes, 'outcome')}</td>
      <td>${sureness(item)}</td>
    </tr>`,
    )}</tbody>
  </table></div>`
}
</section>`,
  );
}

/** One product: its learned offset and what happened to each of its sizes. */
export function productFitDetailPage(context: PageContext, store: Store, fit: ProductFitResponse): Html {
  return layout(
    context,
    {
      title: `${fit.title}: fit`,
      breadcrumbs: [
        { label: 'Stores', href: '/console' },
        { label: store.name, href: `/console/stores/${store.id}` },
        { label: 'How products fit', href: `/console/stores/${store.id}/product-fit` },
        { label: fit.title },
      ],
    },
    html`<h1>${fit.title}</h1>
<section class="card" id="learned" data-direction="${fit.direction}">
  <h2>${DIRECTION_LABELS[fit.direction]}</h2>
  <p class="sentence">${fitSentence(fit)}</p>
  <p class="muted small">In size steps: ${steps(fit.learned.size_steps)} (95% sure between ${steps(fit.learned.low)} and
  ${steps(fit.learned.high)}). With few outcomes, what the product’s type and the store taught counts more.</p>
</section>
<section class="card">
  <h2>By size</h2>
  <div class="table-wrap" role="region" aria-label="Outcomes by size" tabindex="0"><table id="sizes">
    <thead><tr><th>Size</th><th class="num">Bought</th><th class="num">Kept</th><th class="num">Returned for size</th><th class="num">Exchanged for size</th><th class="num">Too small</th><th class="num">Too large</th></tr></thead>
    <tbody>${fit.sizes.map(
      (size) => html`<tr data-size="${size.size_label}">
      <th scope="row">${size.size_label}</th>
      <td class="num">${size.purchased}</td>
      <td class="num">${size.kept}</td>
      <td class="num">${size.size_returns} <span class="muted">(${percent(size.size_return_rate)})</span></td>
      <td class="num">${size.size_exchanges} <span class="muted">(${percent(size.size_exchange_rate)})</span></td>
      <td class="num">${size.too_small}</td>
      <td class="num">${size.too_large}</td>
    </tr>`,
    )}</tbody>
  </table></div>
</section>`,
  );
}

/** "Runs about half a size small, from 12 returns, 2 exchanges and 40 kept." */
function fitSentence(fit: ProductFitResponse): string {
  const total = (key: 'size_returns' | 'size_exchanges' | 'kept') => fit.sizes.reduce((sum, size) => sum + size[key], 0);
  const parts = [
    total('size_returns') ? plural(total('size_returns'), 'return') : '',
    total('size_exchanges') ? plural(total('size_exchanges'), 'exchange') : '',
    total('kept') ? `${total('kept')} kept` : '',
  ].filter(Boolean);
  const from = parts.length
    ? `, from ${parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0]}`
    : '';
  const unsure = fit.direction === 'uncertain' ? ' Not sure yet: more outcomes will tell.' : '';
  const words = fit.direction === 'true_to_size' ? 'Fits true to size' : fitInWords(fit.learned.size_steps);
  return `${words}${from}.${unsure}`;
}
