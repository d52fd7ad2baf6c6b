import type { FieldError } from '../../common/problems/problem-error.js';
import type {
  AssignRule,
  Assignment,
  ImportCounts,
  LineResult,
  ImportTrigger,
  PlatformConnection,
  PlatformImport,
  PlatformNotice,
  PlatformProduct,
} from '../../platform/platform.entities.js';
import type { Store } from '../../stores/store.entity.js';
import { html, type Html } from '../html.js';
import { csrfField, errorSummary, fieldError, invalidAttributes, layout, type PageContext } from './layout.js';

interface PlatformPage {
  readonly store: Store;
  readonly connection: PlatformConnection | null;
  /** Where the platform is to deliver the shop's notifications. */
  readonly address: string;
  readonly notices: readonly PlatformNotice[];
  readonly deadLetters: ReadonlyArray<{ job: string; notice: PlatformNotice | null; error: string | null; failedAt: Date }>;
  /** A dead letter was just sent back for another attempt, or was no longer there. */
  readonly retried?: 'retried' | 'gone';
  readonly catalog: {
    readonly import: PlatformImport | null;
    readonly counts: ImportCounts;
    readonly needsChart: readonly PlatformProduct[];
    readonly skipped: readonly PlatformProduct[];
  };
  /** An import was just started again. */
  readonly importing?: boolean;
  /** The rule form: the store's charts and types, the values products have, and a refused or just applied rule. */
  readonly assign: {
    readonly charts: ReadonlyArray<{ readonly id: string; readonly name: string }>;
    readonly types: ReadonlyArray<{ readonly id: string; readonly name: string }>;
    readonly values: Readonly<Record<AssignRule['field'], readonly string[]>>;
    readonly form?: { readonly values: AssignFormValues; readonly errors: readonly FieldError[] };
    readonly result?: Assignment;
  };
}

interface AssignFormValues {
  readonly field: string;
  readonly value: string;
  readonly size_chart_id: string;
  readonly product_type_id: string;
}

const FIELD_WORDS: Readonly<Record<AssignRule['field'], string>> = { product_type: 'product type', vendor: 'vendor', tag: 'tag' };

const IMPORT_WORDS: Readonly<Record<PlatformImport['state'], string>> = {
  running: 'Importing',
  done: 'Imported',
  failed: 'Stopped',
};

/** What started the last full read of the catalog. */
const TRIGGER_WORDS: Readonly<Record<ImportTrigger, string>> = {
  connection: 'read when the store was connected',
  console: 'read again from this page',
  schedule: 'read again on the schedule',
};

/** What the last full read repaired, in a sentence. */
function repairWords(current: PlatformImport): string {
  return [
    current.removed
      ? `${current.removed} ${current.removed === 1 ? 'product was' : 'products were'} no longer on the shop and left the catalog`
      : '',
    current.repaired
      ? `${current.repaired} ${current.repaired === 1 ? 'product’s variants were' : 'products’ variants were'} brought in line with the shop’s`
      : '',
  ]
    .filter(Boolean)
    .join('; ')
    .concat('.');
}

/** What each topic is, in the merchant's words. */
const TOPIC_WORDS: Readonly<Record<string, string>> = {
  'orders/paid': 'Order paid',
  'returns/requested': 'Return requested',
  'exchanges/created': 'Exchange',
  'refunds/create': 'Refund',
  'products/create': 'Product created',
  'products/update': 'Product changed',
  'products/delete': 'Product deleted',
  'app/uninstalled': 'App uninstalled',
  'customers/data_request': 'A customer asked for her data',
  'customers/redact': 'A customer asked to be erased',
  'shop/redact': 'The shop asked to be erased',
};

const STATE_WORDS: Readonly<Record<string, string>> = {
  queued: 'Waiting to be processed',
  processed: 'Processed',
  failed: 'Could not be read',
  ignored: 'Not used by Size-Fit',
  dead_letter: 'Failed at every attempt',
};

const LINE_WORDS: Readonly<Record<LineResult['status'], string>> = {
  recorded: 'recorded',
  duplicate: 'already recorded',
  not_in_catalog: 'the product is not in the catalog (no product has this platform id as its external id)',
  unknown_variant: 'the product has no variant with this platform id as its external id',
  refused: 'refused',
};

const time = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const topicWords = (topic: string) => TOPIC_WORDS[topic] ?? topic;

/** The store's link to its shop: the connection, the notifications received and how each ended, the dead letters. */
export function platformPage(context: PageContext, page: PlatformPage): Html {
  const { store, connection } = page;
  return layout(
    context,
    {
      title: `${store.name}: shop connection`,
      invalid: Boolean(page.assign.form?.errors.length),
      breadcrumbs: [
        { label: 'Stores', href: '/console' },
        { label: store.name, href: `/console/stores/${store.id}` },
        { label: 'Shop connection' },
      ],
    },
    html`<h1>Shop connection</h1>
${page.retried === 'retried' ? html`<p class="notice" role="status" data-status="retried">The notification is queued again; this page shows how it ends.</p>` : ''}
${page.retried === 'gone' ? html`<p class="warning" role="status" data-status="gone">That notification is no longer waiting for a retry.</p>` : ''}
<section class="card" id="connection" data-connected="${connection ? 'true' : 'false'}">
  <h2>Connection</h2>
  ${
    connection
      ? html`<p>Connected to <strong class="shop">${connection.shop}</strong> since ${time(connection.connectedAt)}.</p>
  <p class="muted small">The platform delivers the shop’s orders, returns and exchanges to <code>${page.address}</code>; each one is
  checked against the app’s signature, kept, and processed within seconds. So are changes to its products; the whole catalog is
  also read again on a schedule, to repair anything a notification missed.</p>`
      : html`<p>This store is not connected to a shop. <a href="/console/stores/${store.id}#platform">Connect it on the store’s page</a>.</p>`
  }
</section>
${page.importing && page.catalog.import?.state === 'running' ? html`<p class="notice" role="status" data-status="importing">The shop’s catalog is being read again.</p>` : ''}
${page.assign.result ? assignedNotice(page.assign.result) : ''}
${connection ? catalogSection(context, store, page.catalog) : ''}
${connection && (page.catalog.counts.needs_chart > 0 || page.assign.form) ? assignForm(context, store, page.assign) : ''}
<section class="card" id="dead-letters">
  <h2>Failed notifications</h2>
  ${
    page.deadLetters.length === 0
      ? html`<p class="empty" data-empty="dead-letters">None: every notification was processed or is on its way.</p>`
      : html`<p class="muted small">Each was tried several times over about 45 minutes and failed every time. Retry once the cause is mended.</p>
  <div class="table-wrap" role="region" aria-label="Failed notifications" tabindex="0"><table>
    <thead><tr><th scope="col">Received</th><th scope="col">Notification</th><th scope="col">Last error</th><th scope="col">Action</th></tr></thead>
    <tbody>${page.deadLetters.map(
      (letter) => html`<tr data-job="${letter.job}">
      <td>${letter.notice ? time(letter.notice.receivedAt) : time(letter.failedAt)}</td>
      <td>${letter.notice ? topicWords(letter.notice.topic) : 'A notification since erased'}</td>
      <td>${letter.error ?? 'unknown'}</td>
      <td><form method="post" action="/console/stores/${store.id}/platform/dead-letters/${letter.job}/retry">
        ${csrfField(context)}<button type="submit">Retry</button>
      </form></td>
    </tr>`,
    )}</tbody>
  </table></div>`
  }
</section>
<section class="card" id="notices">
  <h2>Recent notifications</h2>
  ${
    page.notices.length === 0
      ? html`<p class="empty" data-empty="notices">None received yet.</p>`
      : html`<div class="table-wrap" role="region" aria-label="Recent notifications" tabindex="0"><table>
    <thead><tr><th scope="col">Received</th><th scope="col">Notification</th><th scope="col">State</th><th scope="col">What was done</th></tr></thead>
    <tbody>${page.notices.map((notice) => noticeRow(notice))}</tbody>
  </table></div>`
  }
</section>`,
  );
}

function noticeRow(notice: PlatformNotice): Html {
  const unmapped = (notice.outcome?.lines ?? []).filter((line) => line.status !== 'recorded' && line.status !== 'duplicate');
  return html`<tr data-topic="${notice.topic}" data-state="${notice.state}">
      <td>${time(notice.receivedAt)}</td>
      <td>${topicWords(notice.topic)} <span class="muted small"><code>${notice.topic}</code></span></td>
      <td>${STATE_WORDS[notice.state] ?? notice.state}</td>
      <td>${notice.outcome?.summary ?? ''}${
        unmapped.length
          ? html`<ul class="small" data-unmapped="${String(unmapped.length)}">${unmapped.map(
              (line) =>
                html`<li><code>${line.external_id}</code>: ${LINE_WORDS[line.status]}${line.code ? html` (<code>${line.code}</code>)` : ''}
          <span class="muted">product ${line.product}, variant ${line.variant}</span></li>`,
            )}</ul>`
          : ''
      }</td>
    </tr>`;
}

/** The import of the shop's catalog: its state, what it read, and the products waiting for a chart or skipped. */
function catalogSection(context: PageContext, store: Store, catalog: PlatformPage['catalog']): Html {
  const { counts } = catalog;
  const current = catalog.import;
  const products = (list: readonly PlatformProduct[], label: string, more: number) =>
    list.length === 0
      ? ''
      : html`<details class="small" data-list="${label}"><summary>${label === 'needs-chart' ? 'Products that need a chart' : 'Products skipped: no size option'} (${String(more)})</summary>
    <ul>${list.map(
      (product) =>
        html`<li>${product.title} <span class="muted">${[product.productType, product.vendor].filter(Boolean).join(' · ')} · platform id ${product.platformId}${product.sizeOption ? html` · sizes (${product.sizeOption}): ${product.variants.map((variant) => variant.size ?? '?').join(', ')}` : ''}</span></li>`,
    )}</ul>${more > list.length ? html`<p class="muted">and ${String(more - list.length)} more.</p>` : ''}
  </details>`;
  return html`<section class="card" id="catalog-import" data-state="${current?.state ?? 'none'}">
  <h2>Catalog</h2>
  ${
    current === null
      ? html`<p class="muted">The shop’s catalog has not been imported yet.</p>`
      : html`<p data-pages="${String(current.pages)}" data-trigger="${current.trigger}"><strong>${IMPORT_WORDS[current.state]}</strong>: ${TRIGGER_WORDS[current.trigger]}, started ${time(current.startedAt)}${current.finishedAt ? html`, ended ${time(current.finishedAt)}` : ''}, ${String(current.pages)} ${current.pages === 1 ? 'page' : 'pages'} read.${current.error ? html` ${current.error}` : ''}</p>
  ${current.removed || current.repaired ? html`<p data-removed="${String(current.removed)}" data-repaired="${String(current.repaired)}">${repairWords(current)}</p>` : ''}`
  }
  <p class="figures"><span data-count="products"><strong>${String(counts.products)}</strong> products</span>
  <span data-count="variants"><strong>${String(counts.variants)}</strong> variants</span>
  <span data-count="linked"><strong>${String(counts.linked)}</strong> in the catalog</span>
  <span data-count="needs-chart"><strong>${String(counts.needs_chart)}</strong> need a chart</span>
  <span data-count="skipped"><strong>${String(counts.skipped)}</strong> skipped</span></p>
  <p class="muted small">A product is in the catalog when one of this store’s products has its platform id as external id; products with
  a size option need a size chart and a product type before they get size help.</p>
  ${products(catalog.needsChart, 'needs-chart', counts.needs_chart)}
  ${products(catalog.skipped, 'skipped', counts.skipped)}
  <form method="post" action="/console/stores/${store.id}/platform/import">
    ${csrfField(context)}<button type="submit"${current?.state === 'running' ? ' disabled' : ''}>Import again</button>
  </form>
</section>`;
}

function assignedNotice(result: Assignment): Html {
  const parts = [
    `${result.created} ${result.created === 1 ? 'product is' : 'products are'} in the catalog now, with the chart and type chosen`,
    result.sizesLeftOut
      ? `${result.sizesLeftOut} ${result.sizesLeftOut === 1 ? 'variant was' : 'variants were'} left out: its size is not on the chart`
      : '',
    result.notCreated ? `${result.notCreated} could not be created and still need a chart` : '',
    result.more ? 'more products match: send the rule again' : '',
  ].filter(Boolean);
  return html`<p class="notice" role="status" data-status="assigned">${parts.join('; ')}.</p>`;
}

/** Giving many imported products a chart and a type at once, by their product type, vendor or a tag. */
function assignForm(context: PageContext, store: Store, assign: PlatformPage['assign']): Html {
  const errors = assign.form?.errors ?? [];
  const values = assign.form?.values ?? { field: 'product_type', value: '', size_chart_id: '', product_type_id: '' };
  if (!assign.charts.length || !assign.types.length) {
    return html`<section class="card" id="assign"><h2>Give products a chart</h2>
  <p>Create a <a href="/console/stores/${store.id}/charts">size chart</a> and a <a href="/console/stores/${store.id}/product-types">product type</a> first; then give them here to the products that need one, many at once.</p></section>`;
  }
  const options = (list: PlatformPage['assign']['charts'], selected: string) =>
    list.map((item) => html`<option value="${item.id}"${item.id === selected ? ' selected' : ''}>${item.name}</option>`);
  const known = [...new Set(Object.values(assign.values).flat())];
  return html`<section class="card" id="assign">
  <h2>Give products a chart</h2>
  <p class="muted small">Every product that needs a chart and matches becomes a product of this store, with the chart, the type and a variant per size
  on the chart; sizes not on the chart are left out and counted.</p>
  ${errorSummary(errors, { field: 'assign-field', value: 'assign-value', size_chart_id: 'assign-chart', product_type_id: 'assign-type' })}
  <form method="post" action="/console/stores/${store.id}/platform/assign" class="stack">
    ${csrfField(context)}
    <label for="assign-field">Products whose</label>
    <select id="assign-field" name="field"${invalidAttributes(errors, 'field')}>${(Object.keys(FIELD_WORDS) as AssignRule['field'][]).map(
      (field) => html`<option value="${field}"${field === values.field ? ' selected' : ''}>${FIELD_WORDS[field]}</option>`,
    )}</select>
    ${fieldError(errors, 'field')}
    <label for="assign-value">is</label>
    <input id="assign-value" name="value" required maxlength="255" list="assign-values" value="${values.value}"${invalidAttributes(errors, 'value')}>
    <datalist id="assign-values">${known.map((value) => html`<option value="${value}"></option>`)}</datalist>
    ${fieldError(errors, 'value')}
    <label for="assign-chart">Size chart</label>
    <select id="assign-chart" name="size_chart_id"${invalidAttributes(errors, 'size_chart_id')}>${options(assign.charts, values.size_chart_id)}</select>
    ${fieldError(errors, 'size_chart_id')}
    <label for="assign-type">Product type</label>
    <select id="assign-type" name="product_type_id"${invalidAttributes(errors, 'product_type_id')}>${options(assign.types, values.product_type_id)}</select>
    ${fieldError(errors, 'product_type_id')}
    <button type="submit" class="primary">Give them the chart</button>
  </form>
</section>`;
}
