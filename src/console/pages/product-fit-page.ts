import type { ProductFitItemResponse, ProductFitListResponse, ProductFitResponse } from '../../fit/dto/product-fit.dto.js';
import type { Store } from '../../stores/store.entity.js';
import { html, type Html } from '../html.js';
import { layout, type PageContext } from './layout.js';

/** The columns the table sorts by, and how. */
export const PRODUCT_FIT_SORTS = {
  evidence: { label: 'Evidence', order: (a: ProductFitItemResponse, b: ProductFitItemResponse) => strength(b) - strength(a) },
  steps: {
    label: 'Size steps',
    order: (a: ProductFitItemResponse, b: ProductFitItemResponse) => b.learned.size_steps - a.learned.size_steps,
  },
  outcomes: { label: 'Outcomes', order: (a: ProductFitItemResponse, b: ProductFitItemResponse) => b.learned.outcomes - a.learned.outcomes },
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
<p class="muted">Learned from what shoppers kept, returned and exchanged for size in this store. Positive size steps: shoppers
need a bigger size than the chart says (the product runs small). Recommendations already take it into account.</p>
<section class="card">
${
  items.length === 0
    ? html`<p id="no-products">No outcome has taught anything yet: send kept items, and returns and exchanges for size (with
  <code>fit_feedback</code> when the shopper said which way).</p>`
    : html`<div class="table-wrap" role="region" aria-label="Products by fit" tabindex="0"><table id="product-fit">
    <thead><tr>${header('title', false)}<th>Fit</th>${header('steps')}<th class="num">95% interval</th>${header('outcomes')}${header('evidence')}</tr></thead>
    <tbody>${items.map(
      (item) => html`<tr data-product-id="${item.product_id}" data-direction="${item.direction}">
      <th scope="row"><a href="${base}/${item.product_id}">${item.title}</a></th>
      <td>${DIRECTION_LABELS[item.direction]}</td>
      <td class="num">${steps(item.learned.size_steps)}</td>
      <td class="num muted">${steps(item.learned.low)} to ${steps(item.learned.high)}</td>
      <td class="num">${item.learned.outcomes}</td>
      <td class="num">${strength(item).toFixed(1)}</td>
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
  <p><strong>${steps(fit.learned.size_steps)}</strong> size steps (95% interval ${steps(fit.learned.low)} to ${steps(fit.learned.high)}),
  from ${fit.learned.outcomes} outcomes of this product; with few, it leans on its product type and the store.</p>
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
