import { SCOPES } from '../../auth/scopes.js';
import type { ApiKeyResponse, CreatedApiKeyResponse } from '../../api-keys/dto/api-key.response.js';
import type { FieldError } from '../../common/problems/problem-error.js';
import type { StoreResponse } from '../../stores/dto/store.dto.js';
import type { Store } from '../../stores/store.entity.js';
import { html, type Html } from '../html.js';
import type { PlatformConnection } from '../../platform/platform.entities.js';
import { csrfField, errorSummary, fieldError, fieldHint, invalidAttributes, layout, type PageContext } from './layout.js';

export interface StoreFormValues {
  readonly name: string;
  readonly currency: string;
  readonly unit_system: string;
}

export function storesPage(
  context: PageContext,
  stores: readonly StoreResponse[],
  more: string | null,
  form?: { readonly values: StoreFormValues; readonly errors: readonly FieldError[] },
): Html {
  return layout(
    context,
    { title: 'Stores', invalid: Boolean(form?.errors.length) },
    html`<h1>Stores</h1>
${
  stores.length === 0
    ? html`<section class="card" data-empty="stores">
  <p>You have no stores yet. Create your first store below: it holds your size charts, products and keys.</p>
  <p class="muted small">For developers: <code>POST /v1/stores</code> with the admin key does the same.</p>
</section>`
    : html`<ul class="store-list">${stores.map(
        (store) => html`<li class="card">
    <a data-store-id="${store.id}" href="/console/stores/${store.id}">${store.name}</a>
    <span class="muted">${store.currency} · ${store.unit_system}${store.platform_shop ? html` · ${store.platform_shop}` : ''}</span>
  </li>`,
      )}</ul>`
}
${more ? html`<p><a href="/console?after=${more}">Older stores →</a></p>` : ''}
<details class="card create-store" id="new-store"${form || stores.length === 0 ? ' open' : ''}>
  <summary>Create a store</summary>
  ${storeForm(context, { action: '/console/stores', button: 'Create store', values: form?.values, errors: form?.errors ?? [] })}
</details>`,
  );
}

/** The fields of a store, to create one or change it. */
function storeForm(
  context: PageContext,
  form: { action: string; button: string; values?: StoreFormValues; errors: readonly FieldError[] },
): Html {
  const values = form.values ?? { name: '', currency: 'EUR', unit_system: 'metric' };
  const { errors } = form;
  return html`${errorSummary(errors, { name: 'store-name', currency: 'store-currency', unit_system: 'store-units-metric' })}
  <form method="post" action="${form.action}" class="stack">
    ${csrfField(context)}
    <label for="store-name">Name</label>
    <input id="store-name" name="name" required maxlength="200" placeholder="Acme EU" value="${values.name}"${invalidAttributes(errors, 'name')}>
    ${fieldError(errors, 'name')}
    <label for="store-currency">Currency</label>
    <input id="store-currency" name="currency" required maxlength="3" autocapitalize="characters" spellcheck="false" value="${values.currency}"${invalidAttributes(errors, 'currency', { hint: true })}>
    ${fieldHint('currency', 'Its three-letter code: EUR, USD, GBP…')}
    ${fieldError(errors, 'currency')}
    <fieldset${invalidAttributes(errors, 'unit_system')}>
      <legend>Measurements shoppers see</legend>
      <label class="check"><input type="radio" id="store-units-metric" name="unit_system" value="metric"${values.unit_system !== 'imperial' ? ' checked' : ''}> <span>Centimetres and kilograms</span></label>
      <label class="check"><input type="radio" id="store-units-imperial" name="unit_system" value="imperial"${values.unit_system === 'imperial' ? ' checked' : ''}> <span>Inches and pounds</span></label>
    </fieldset>
    ${fieldError(errors, 'unit_system')}
    <button type="submit" class="primary">${form.button}</button>
  </form>`;
}

export interface StorePage {
  readonly store: Store;
  readonly keys: readonly ApiKeyResponse[];
  readonly moreKeys: string | null;
  /** Right after issuing: the new key with its secret, shown this once. */
  readonly newKey?: CreatedApiKeyResponse;
  /** The issue form was sent again (a reload of the page that showed the secret): nothing more was issued. */
  readonly alreadyIssued?: boolean;
  /** A new id for each rendering of the issue form, so that sending it twice issues one key (submitted-forms.ts). */
  readonly issueFormId: string;
  readonly issueForm?: { readonly values: IssueFormValues; readonly errors: readonly FieldError[] };
  readonly platform: { readonly configured: boolean; readonly connection: PlatformConnection | null };
  readonly connectForm?: { readonly shop: string; readonly errors: readonly FieldError[] };
  readonly settingsForm?: { readonly values: StoreFormValues; readonly errors: readonly FieldError[] };
  /** Just created, or its settings just saved. */
  readonly notice?: 'created' | 'saved';
  /** Which of the catalog's steps the store has something for. */
  readonly catalog: { readonly charts: boolean; readonly types: boolean; readonly products: boolean };
}

export interface IssueFormValues {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly expires_at: string;
}

export function storePage(context: PageContext, page: StorePage): Html {
  const { store } = page;
  return layout(
    context,
    {
      title: store.name,
      invalid: Boolean(page.issueForm?.errors.length || page.connectForm?.errors.length || page.settingsForm?.errors.length),
      breadcrumbs: [{ label: 'Stores', href: '/console' }, { label: store.name }],
    },
    html`<div class="heading-row">
  <h1>${store.name}</h1>
  <div class="heading-actions">
    <a class="button" href="/console/stores/${store.id}/metrics">Metrics</a>
    <a class="button" href="/console/stores/${store.id}/product-fit">How products fit</a>
    <a class="button" href="/console/stores/${store.id}/experiments">Experiments</a>
    <a class="button" href="/console/stores/${store.id}/status">Integration status</a>
  </div>
</div>
${page.notice === 'created' ? html`<p class="notice" role="status" data-status="created">The store is created. Set up its catalog: size charts, product types, then products.</p>` : ''}
${page.notice === 'saved' ? html`<p class="notice" role="status" data-status="saved">The store’s settings are saved.</p>` : ''}
${page.newKey ? newKeyNotice(page.newKey) : ''}${page.alreadyIssued ? alreadyIssuedNotice() : ''}
<section class="card" id="setup">
  <h2>Catalog</h2>
  ${setupSteps(store, page.catalog)}
</section>
<section class="card" id="keys">
  <h2>API keys</h2>
  <p class="muted">Keys bound to this store, for your e-commerce backend. Each secret is shown once, when the key is issued.</p>
  ${keysTable(context, store, page.keys)}
  ${page.moreKeys ? html`<p><a href="/console/stores/${store.id}?keys_after=${page.moreKeys}">Older keys →</a></p>` : ''}
  ${issueForm(context, store, page.issueFormId, page.issueForm)}
</section>
${platformSection(context, store, page)}
<details class="card" id="settings"${page.settingsForm ? ' open' : ''}>
  <summary>Store settings</summary>
  ${storeForm(context, {
    action: `/console/stores/${store.id}/settings`,
    button: 'Save settings',
    values: page.settingsForm?.values ?? { name: store.name, currency: store.currency, unit_system: store.unitSystem },
    errors: page.settingsForm?.errors ?? [],
  })}
</details>`,
  );
}

function newKeyNotice(key: CreatedApiKeyResponse): Html {
  return html`<section class="card notice" role="status">
  <h2>Key “${key.name}” issued</h2>
  <p>Copy the secret now: it is not stored and will never be shown again.</p>
  <div class="secret"><code id="new-secret">${key.secret}</code><button type="button" class="copy" data-copy="new-secret" hidden>Copy</button></div>
</section>`;
}

function alreadyIssuedNotice(): Html {
  return html`<section class="card notice" role="status" data-notice="already-issued">
  <h2>This form was sent already</h2>
  <p>Its key was issued then, and is in the list below; nothing more was issued now. Its secret was shown that once:
  if it was not copied, revoke that key and issue another.</p>
</section>`;
}

function keysTable(context: PageContext, store: Store, keys: readonly ApiKeyResponse[]): Html {
  if (keys.length === 0)
    return html`<p class="empty" data-empty="keys">No keys yet. Your shop’s backend needs one to send anything: issue it below
  with <strong>catalog</strong>, <strong>fit</strong> and <strong>events</strong>, and give its secret to whoever connects the shop.</p>`;
  const now = Date.now();
  return html`<div class="table-wrap"><table class="keys">
  <thead><tr><th>Name</th><th>Key</th><th>Scopes</th><th>Status</th><th>Last used</th><th>Expires</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${keys.map((key) => {
    const status = key.revoked_at ? 'revoked' : key.expires_at && Date.parse(key.expires_at) <= now ? 'expired' : 'active';
    return html`<tr data-key-id="${key.id}" data-status="${status}">
    <td class="name">${key.name}</td>
    <td class="prefix"><code>${key.prefix}…</code></td>
    <td class="scopes">${key.scopes.join(', ')}</td>
    <td class="status"><span class="badge ${status}">${status}</span>${keyDates(key, status)}</td>
    <td class="used" data-label="Last used">${key.last_used_at ? key.last_used_at.slice(0, 16).replace('T', ' ') : html`<span class="muted">never</span>`}</td>
    <td class="expires" data-label="Expires">${key.expires_at ? key.expires_at.slice(0, 10) : html`<span class="muted">never</span>`}</td>
    <td class="actions">${
      status === 'active'
        ? html`<form method="post" action="/console/stores/${store.id}/keys/${key.id}/revoke" data-confirm="Revoke “${key.name}”? Requests with it will fail at once.">
        ${csrfField(context)}<button type="submit" class="danger small">Revoke<span class="visually-hidden"> “${key.name}”</span></button></form>`
        : ''
    }</td>
  </tr>`;
  })}</tbody>
</table></div>`;
}

function keyDates(key: ApiKeyResponse, status: string): Html {
  const day = (value: string) => value.slice(0, 10);
  if (status === 'revoked') return html`<span class="muted small"> since ${day(key.revoked_at as string)}</span>`;
  // an active key's expiry has its own column
  if (key.expires_at && status === 'expired') return html`<span class="muted small"> since ${day(key.expires_at)}</span>`;
  return html``;
}

const SCOPE_HINTS: Readonly<Record<string, string>> = {
  catalog: 'products, size charts, questionnaires',
  fit: 'fit sessions and recommendations',
  events: 'purchase and return events',
  analytics: 'metrics',
  admin: 'everything in this store',
};

function issueForm(context: PageContext, store: Store, formId: string, form: StorePage['issueForm']): Html {
  const values = form?.values ?? { name: '', scopes: [], expires_at: '' };
  const errors = form?.errors ?? [];
  return html`<details class="issue"${form ? ' open' : ''}>
  <summary>Issue a key</summary>
  ${errorSummary(errors, { name: 'key-name', scopes: `key-scope-${SCOPES[0]}`, expires_at: 'key-expiry' })}
  <form method="post" action="/console/stores/${store.id}/keys" class="stack">
    ${csrfField(context)}<input type="hidden" name="form_id" value="${formId}">
    <label for="key-name">Name</label>
    <input id="key-name" name="name" required maxlength="200" placeholder="Checkout backend" value="${values.name}"${invalidAttributes(errors, 'name')}>
    ${fieldError(errors, 'name')}
    <fieldset${invalidAttributes(errors, 'scopes')}>
      <legend>Scopes</legend>
      ${SCOPES.map(
        (
          scope,
        ) => html`<label class="check"><input type="checkbox" id="key-scope-${scope}" name="scopes" value="${scope}"${values.scopes.includes(scope) ? ' checked' : ''}>
        <span><strong>${scope}</strong> <span class="muted">${SCOPE_HINTS[scope] ?? ''}</span></span></label>`,
      )}
    </fieldset>
    ${fieldError(errors, 'scopes')}
    <label for="key-expiry">Expires on <span class="muted">(optional, at most a year ahead; at 00:00 UTC)</span></label>
    <input id="key-expiry" name="expires_at" type="date" value="${values.expires_at}"${invalidAttributes(errors, 'expires_at')}>
    ${fieldError(errors, 'expires_at')}
    <button type="submit" class="primary">Issue key</button>
  </form>
</details>`;
}

function platformSection(context: PageContext, store: Store, page: StorePage): Html {
  const { connection, configured } = page.platform;
  const errors = page.connectForm?.errors ?? [];
  return html`<section class="card" id="platform" data-connected="${connection ? 'true' : 'false'}">
  <h2>Platform connection</h2>
  ${
    connection
      ? html`<p>Connected to <strong class="shop">${connection.shop}</strong> since ${connection.connectedAt.toISOString().slice(0, 10)}
      <span class="muted">(permissions: ${connection.scopes.split(',').filter(Boolean).join(', ') || 'none'})</span>.</p>
    <p><a href="/console/stores/${store.id}/platform">The shop’s orders and returns as they arrive →</a></p>
    <form method="post" action="/console/stores/${store.id}/platform/disconnect" data-confirm="Disconnect ${connection.shop}?">
      ${csrfField(context)}<button type="submit" class="danger">Disconnect</button>
    </form>`
      : configured
        ? html`<p class="muted">Connect this store to its shop on the e-commerce platform. You will approve the connection on the platform and come back here.</p>
    ${errorSummary(errors, { shop: 'shop' })}
    <form method="post" action="/console/stores/${store.id}/platform/connect" class="inline">
      ${csrfField(context)}
      <label for="shop">Shop domain</label>
      <input id="shop" name="shop" required placeholder="your-shop.myshopify.com" spellcheck="false" autocapitalize="none" value="${page.connectForm?.shop ?? ''}"${invalidAttributes(errors, 'shop')}>
      <button type="submit" class="primary">Connect</button>
    </form>
    ${fieldError(errors, 'shop')}`
        : html`<p class="muted">Connecting a shop isn’t available on this service; ask whoever runs your Size-Fit service.</p>`
  }
</section>`;
}

/** The catalog's three steps, each marked done, or the first one left as what to do next. */
function setupSteps(store: Store, catalog: StorePage['catalog']): Html {
  const steps = [
    {
      key: 'charts',
      done: catalog.charts,
      label: 'Size charts',
      path: 'charts',
      hint: 'which body measurements each size fits; start from a template',
    },
    {
      key: 'types',
      done: catalog.types,
      label: 'Product types',
      path: 'product-types',
      hint: 'which measurements decide the fit of each kind of garment',
    },
    {
      key: 'products',
      done: catalog.products,
      label: 'Products',
      path: 'products',
      hint: 'each with its type and chart, and a variant per size',
    },
  ];
  const next = steps.find((step) => !step.done)?.key;
  return html`<ol class="setup-steps">${steps.map(
    (
      step,
    ) => html`<li data-step="${step.key}" data-done="${step.done ? 'true' : 'false'}"><a href="/console/stores/${store.id}/${step.path}">${step.label}</a>
    ${step.done ? html`<span class="badge active">done</span>` : step.key === next ? html`<span class="badge next">next</span>` : ''}
    <span class="muted">${step.hint}</span></li>`,
  )}</ol>`;
}
