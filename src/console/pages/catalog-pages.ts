import type { ProductTypeResponse } from '../../catalog/dto/product-type.dto.js';
import type { ProductResponse } from '../../catalog/dto/product.dto.js';
import type { SizeChartResponse } from '../../catalog/dto/size-chart.dto.js';
import { CATEGORIES } from '../../catalog/catalog.entities.js';
import type { FieldError } from '../../common/problems/problem-error.js';
import { FIT_ADJUSTMENTS, ZONES } from '../../sizing/types.js';
import type { Store } from '../../stores/store.entity.js';
import { LABEL_SYSTEMS, SIZE_CHART_TEMPLATES } from '../catalog/size-chart-templates.js';
import {
  type CellErrors,
  type ChartForm,
  chartFieldId,
  type CsvImportError,
  type CsvImportResult,
  ZONE_LABELS,
} from '../catalog/chart-form.js';
import { html, type Html } from '../html.js';
import { csrfField, errorSummary, fieldError, fieldHint, invalidAttributes, layout, type PageContext } from './layout.js';

type Section = 'charts' | 'types' | 'products';

const SECTIONS: ReadonlyArray<{ readonly key: Section; readonly label: string; readonly path: string }> = [
  { key: 'charts', label: 'Size charts', path: 'charts' },
  { key: 'types', label: 'Product types', path: 'product-types' },
  { key: 'products', label: 'Products', path: 'products' },
];

const CATEGORY_LABELS: Readonly<Record<string, string>> = {
  tops: 'Tops',
  bottoms: 'Bottoms',
  dresses: 'Dresses',
  outerwear: 'Outerwear',
  shoes: 'Shoes',
  other: 'Other',
};

const FIT_SHORT: Readonly<Record<string, string>> = { runs_small: 'Runs small', true_to_size: 'True to size', runs_large: 'Runs large' };

const FIT_LABELS: Readonly<Record<string, string>> = {
  runs_small: 'Runs small (shoppers size up)',
  true_to_size: 'True to size',
  runs_large: 'Runs large (shoppers size down)',
};

/** The catalog pages of a store: breadcrumbs to the store, and the three steps of setting it up. */
function catalogLayout(
  context: PageContext,
  store: Store,
  section: Section,
  options: { title: string; invalid?: boolean; crumbs?: ReadonlyArray<{ label: string; href?: string }> },
  body: Html,
): Html {
  const base = `/console/stores/${store.id}`;
  const current = SECTIONS.find((s) => s.key === section);
  return layout(
    context,
    {
      title: `${store.name}: ${options.title}`,
      invalid: options.invalid,
      breadcrumbs: [
        { label: 'Stores', href: '/console' },
        { label: store.name, href: base },
        ...(options.crumbs ?? [{ label: current?.label ?? options.title }]),
      ],
    },
    html`<nav class="steps" aria-label="Set up the catalog"><ol>${SECTIONS.map(
      (s, i) =>
        html`<li><a href="${base}/${s.path}"${s.key === section ? html` aria-current="page"` : ''}><span class="step">${i + 1}</span> ${s.label}</a></li>`,
    )}</ol></nav>
${body}`,
  );
}

// ———————————————————————————————————————— size charts ————————————————————————————————————————

export interface TemplateFormValues {
  readonly template: string;
  readonly labels: string;
  readonly name: string;
}

interface ChartsPage {
  readonly store: Store;
  readonly charts: readonly SizeChartResponse[];
  readonly templateForm?: { readonly values: TemplateFormValues; readonly errors: readonly FieldError[] };
  readonly importForm?: { readonly name: string; readonly csv: string; readonly result: CsvImportResult };
}

export function chartsPage(context: PageContext, page: ChartsPage): Html {
  const { store } = page;
  const base = `/console/stores/${store.id}/charts`;
  const values = page.templateForm?.values ?? { template: SIZE_CHART_TEMPLATES[0].id, labels: 'EU', name: '' };
  const errors = page.templateForm?.errors ?? [];
  return catalogLayout(
    context,
    store,
    'charts',
    { title: 'Size charts', invalid: Boolean(errors.length || page.importForm) },
    html`<h1>Size charts</h1>
<p class="muted">A size chart says which body measurements each size fits. Every product uses one chart; products of one
cut share it.</p>
<section class="card" id="charts">
  <h2>This store’s charts</h2>
  ${
    page.charts.length === 0
      ? html`<p class="empty" data-empty="charts">No size chart yet. Start from a template below (you can change every
      figure afterwards), or import one from a spreadsheet.</p>`
      : html`<div class="table-wrap"><table id="chart-list">
    <thead><tr><th>Chart</th><th>Sizes</th><th>Measures</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${page.charts.map(
      (chart) => html`<tr data-chart-id="${chart.id}">
      <th scope="row"><a href="${base}/${chart.id}">${chart.name}</a></th>
      <td>${chart.sizes.map((size) => size.label).join(', ')}</td>
      <td class="muted">${chartZones(chart)
        .map((zone) => ZONE_LABELS[zone].toLowerCase())
        .join(', ')} (${chart.unit}, ${chart.measurement_type === 'body' ? 'body' : 'garment'})</td>
      <td class="actions"><a href="${base}/${chart.id}/csv" download>CSV<span class="visually-hidden"> of ${chart.name}</span></a></td>
    </tr>`,
    )}</tbody>
  </table></div>`
  }
</section>
<section class="card" id="from-template">
  <h2>Start from a template</h2>
  <p class="muted">Body measurements in centimetres following the European standard EN 13402, labelled the way your
  shoppers know their size.</p>
  ${errorSummary(errors, { template: 'template', labels: 'labels-EU', name: 'chart-name' })}
  <form method="post" action="${base}" class="stack">
    ${csrfField(context)}
    <label for="template">Template</label>
    <select id="template" name="template"${invalidAttributes(errors, 'template')}>${SIZE_CHART_TEMPLATES.map(
      (t) => html`<option value="${t.id}"${t.id === values.template ? ' selected' : ''}>${t.title}</option>`,
    )}</select>
    ${fieldError(errors, 'template')}
    <fieldset${invalidAttributes(errors, 'labels')}>
      <legend>Size labels</legend>
      ${LABEL_SYSTEMS.map(
        (
          system,
        ) => html`<label class="check"><input type="radio" id="labels-${system}" name="labels" value="${system}"${system === values.labels ? ' checked' : ''}>
        <span>${system} <span class="muted">${LABEL_EXAMPLES[system]}</span></span></label>`,
      )}
    </fieldset>
    ${fieldError(errors, 'labels')}
    <label for="chart-name">Name <span class="muted">(optional)</span></label>
    <input id="chart-name" name="name" maxlength="200" value="${values.name}" placeholder="Women’s tops (EU)"${invalidAttributes(errors, 'name')}>
    ${fieldError(errors, 'name')}
    <button type="submit" class="primary">Create chart</button>
  </form>
</section>
${importSection(context, store, page.importForm)}`,
  );
}

const LABEL_EXAMPLES: Readonly<Record<string, string>> = {
  EU: 'women 36, men 50, children by height (116)',
  US: 'women 6, men 40, children by age (6)',
  UK: 'women 10, men 40, children by age (6-7 Y)',
};

function importSection(context: PageContext, store: Store, form: ChartsPage['importForm']): Html {
  const result = form?.result;
  return html`<section class="card" id="import">
  <h2>Import a chart from CSV</h2>
  <p class="muted">One row per size, smallest first: a <code>size</code> column, then <code>chest_min</code>,
  <code>chest_max</code> and so on for each measurement, in centimetres. Export a chart to see the layout.</p>
  ${
    result && !result.ok
      ? html`<div class="error-summary" role="alert" aria-labelledby="import-errors-title" id="import-errors">
    <h2 id="import-errors-title">The file was not imported</h2>
    <ul>${result.errors.map(
      (error) =>
        html`<li data-row="${error.row ?? ''}" data-column="${error.column ?? ''}">${error.row ? html`<strong>Row ${error.row}${error.column ? html`, ${error.column}` : ''}:</strong> ` : ''}${error.message}</li>`,
    )}</ul>
  </div>
  ${result.table ? csvTable(result.table, result.errors) : ''}`
      : ''
  }
  <form method="post" action="/console/stores/${store.id}/charts/import" class="stack">
    ${csrfField(context)}
    <label for="import-name">Name of the chart</label>
    <input id="import-name" name="name" required maxlength="200" value="${form?.name ?? ''}">
    <label for="import-file">File</label>
    <input id="import-file" type="file" accept=".csv,text/csv" data-fills="import-csv" aria-describedby="import-file-hint">
    <p class="hint" id="import-file-hint">Choosing a file puts its text in the box below; you can also paste it there.</p>
    <label for="import-csv">CSV text</label>
    <textarea id="import-csv" name="csv" rows="8" spellcheck="false" required>${form?.csv ?? ''}</textarea>
    <button type="submit" class="primary">Import chart</button>
  </form>
</section>`;
}

/** The imported rows as a table, each refused cell marked and named. */
function csvTable(table: readonly (readonly string[])[], errors: readonly CsvImportError[]): Html {
  const [header, ...rows] = table;
  const bad = (row: number, column: string) => errors.some((e) => e.row === row && e.column === column);
  return html`<div class="table-wrap" role="region" aria-label="The imported rows" tabindex="0"><table id="import-table">
    <thead><tr><th scope="col">Row</th>${header.map((cell) => html`<th scope="col">${cell}</th>`)}</tr></thead>
    <tbody>${rows.map(
      (cells, i) =>
        html`<tr><th scope="row">${i + 2}</th>${cells.map((cell, j) =>
          bad(i + 2, header[j] ?? '')
            ? html`<td class="cell-error" data-error="true">${cell}<span class="visually-hidden"> (refused)</span></td>`
            : html`<td>${cell}</td>`,
        )}</tr>`,
    )}</tbody>
  </table></div>`;
}

/** The zones a chart states for some size, in the engine's order. */
const chartZones = (chart: Pick<SizeChartResponse, 'sizes'>): string[] =>
  ZONES.filter((zone) => chart.sizes.some((size) => size.measurements[zone] !== undefined));

interface ChartPage {
  readonly store: Store;
  readonly chart: SizeChartResponse;
  readonly form: ChartForm;
  readonly errors: readonly FieldError[];
  readonly cellErrors: CellErrors;
  readonly saved?: boolean;
}

/** One chart: its name and every range, editable, with a drawing of the ranges that follows the figures. */
export function chartPage(context: PageContext, page: ChartPage): Html {
  const { store, chart, form, errors, cellErrors } = page;
  const base = `/console/stores/${store.id}/charts`;
  const shown: Record<string, string> = { name: 'chart-name' };
  for (const key of Object.keys(cellErrors)) shown[key] = chartFieldId(key);
  const cellError = (key: string) => cellErrors[key];
  const describedBy = (key: string) => (cellError(key) ? html` aria-invalid="true" aria-describedby="${chartFieldId(key)}-error"` : '');
  return catalogLayout(
    context,
    store,
    'charts',
    {
      title: chart.name,
      invalid: errors.length > 0,
      crumbs: [{ label: 'Size charts', href: base }, { label: chart.name }],
    },
    html`<div class="heading-row"><h1>${chart.name}</h1>
<div class="heading-actions"><a class="button" href="${base}/${chart.id}/csv" download>Export CSV</a></div></div>
${page.saved ? html`<p class="notice" role="status" data-status="saved">The chart is saved. Recommendations use it from now on.</p>` : ''}
${errorSummary(errors, shown)}
<form method="post" action="${base}/${chart.id}" class="stack" id="chart-form">
  ${csrfField(context)}
  <input type="hidden" name="zones" value="${form.zones.join(',')}">
  <input type="hidden" name="rows" value="${String(form.rows.length)}">
  <label for="chart-name">Name</label>
  <input id="chart-name" name="name" required maxlength="200" value="${form.name}"${invalidAttributes(errors, 'name')}>
  ${fieldError(errors, 'name')}
  <p class="muted">Body measurements in ${chart.unit}, smallest size first: each size fits from the first figure to the
  second. Leave a row empty to drop it; fill the empty rows to add sizes.</p>
  <div class="table-wrap" role="region" aria-label="Sizes and their ranges" tabindex="0"><table id="chart-sizes">
    <thead><tr><th scope="col">Size</th>${form.zones.map(
      (zone) => html`<th scope="col" colspan="2">${ZONE_LABELS[zone]} <span class="muted">(${chart.unit})</span></th>`,
    )}</tr></thead>
    <tbody>${form.rows.map((row, i) => {
      const name = row.label || `row ${i + 1}`;
      return html`<tr data-row="${i}">
      <td><input class="label" id="${chartFieldId(`sizes[${i}].label`)}" name="size_${i}_label" value="${row.label}" maxlength="50" aria-label="Size label, row ${i + 1}"${describedBy(`sizes[${i}].label`)}>${cellMessage(`sizes[${i}].label`, cellError(`sizes[${i}].label`))}</td>
      ${form.zones.map((zone) => {
        const key = `sizes[${i}].measurements.${zone}`;
        const cell = row.cells[zone] ?? { min: '', max: '' };
        return html`<td><input class="range" inputmode="decimal" id="${chartFieldId(key)}" name="size_${i}_${zone}_min" value="${cell.min}" data-zone="${zone}" data-end="min" aria-label="${ZONE_LABELS[zone]} from, size ${name}"${describedBy(key)}>${cellMessage(key, cellError(key))}</td>
        <td><input class="range" inputmode="decimal" id="${chartFieldId(key)}-max" name="size_${i}_${zone}_max" value="${cell.max}" data-zone="${zone}" data-end="max" aria-label="${ZONE_LABELS[zone]} to, size ${name}"${describedBy(key)}></td>`;
      })}
    </tr>`;
    })}</tbody>
  </table></div>
  <button type="submit" class="primary">Save chart</button>
</form>
<section class="card" id="preview" aria-labelledby="preview-title">
  <h2 id="preview-title">The ranges, drawn</h2>
  <p class="muted">Each bar is a size; gaps between bars are bodies no size fits, overlaps are bodies two sizes fit.
  The drawing follows the table as you type.</p>
  ${rangePreview(form)}
</section>`,
  );
}

function cellMessage(key: string, message: string | undefined): Html {
  return message ? html`<p class="field-error" id="${chartFieldId(key)}-error" data-field="${key}">${message}</p>` : html``;
}

/** One SVG per zone: a bar per size from its min to its max, on a scale shared by the sizes. */
function rangePreview(form: ChartForm): Html {
  return html`<div id="range-preview">${form.zones.map((zone) => {
    const rows = form.rows
      .map((row) => ({ label: row.label, min: Number(row.cells[zone]?.min), max: Number(row.cells[zone]?.max) }))
      .filter((row) => row.label && Number.isFinite(row.min) && Number.isFinite(row.max) && row.max > row.min);
    const lo = Math.min(...rows.map((row) => row.min));
    const hi = Math.max(...rows.map((row) => row.max));
    const x = (value: number) => 70 + ((value - lo) / Math.max(hi - lo, 1)) * 520;
    const height = Math.max(rows.length, 1) * 18 + 20;
    return html`<figure class="preview" data-zone="${zone}">
    <figcaption>${ZONE_LABELS[zone]}</figcaption>
    <svg viewBox="0 0 640 ${String(height)}" width="100%" role="img" aria-label="${ZONE_LABELS[zone]} ranges: ${rows
      .map((row) => `${row.label} ${row.min} to ${row.max}`)
      .join('; ')}">${rows.map(
      (row, i) => html`<text x="64" y="${String(i * 18 + 13)}" text-anchor="end">${row.label}</text>
      <rect x="${x(row.min).toFixed(1)}" y="${String(i * 18 + 3)}" width="${(x(row.max) - x(row.min)).toFixed(1)}" height="12" rx="3"></rect>`,
    )}${rows.length ? html`<text x="70" y="${String(height - 4)}">${String(lo)}</text><text x="590" y="${String(height - 4)}" text-anchor="end">${String(hi)}</text>` : ''}</svg>
  </figure>`;
  })}</div>`;
}

// ———————————————————————————————————————— product types ————————————————————————————————————————

export interface TypeFormValues {
  readonly name: string;
  readonly category: string;
  readonly weights: Readonly<Record<string, string>>;
}

interface TypesPage {
  readonly store: Store;
  readonly types: readonly ProductTypeResponse[];
  readonly form?: { readonly values: TypeFormValues; readonly errors: readonly FieldError[] };
}

const weightsText = (type: ProductTypeResponse): string =>
  Object.entries(type.zone_weights)
    .filter(([, weight]) => (weight ?? 0) > 0)
    .map(([zone, weight]) => `${ZONE_LABELS[zone] ?? zone} ${weight}`)
    .join(', ');

export function typesPage(context: PageContext, page: TypesPage): Html {
  const { store } = page;
  const errors = page.form?.errors ?? [];
  const values = page.form?.values ?? { name: '', category: 'tops', weights: { chest: '1', waist: '0.5' } };
  return catalogLayout(
    context,
    store,
    'types',
    { title: 'Product types', invalid: errors.length > 0 },
    html`<h1>Product types</h1>
<p class="muted">A product type says which measurements decide the fit of a kind of garment, and how much each counts:
a T-shirt is chosen by chest, then waist; trousers by waist and hip.</p>
<section class="card" id="types">
  <h2>This store’s types</h2>
  ${
    page.types.length === 0
      ? html`<p class="empty" data-empty="types">No product type yet. Add one below for each kind of garment you sell.</p>`
      : html`<div class="table-wrap"><table id="type-list">
    <thead><tr><th>Type</th><th>Category</th><th>Measurements that decide the fit</th></tr></thead>
    <tbody>${page.types.map(
      (type) =>
        html`<tr data-type-id="${type.id}"><th scope="row"><a href="/console/stores/${store.id}/product-types/${type.id}">${type.name}</a></th><td>${CATEGORY_LABELS[type.category]}</td><td>${weightsText(type)}</td></tr>`,
    )}</tbody>
  </table></div>`
  }
</section>
<section class="card" id="new-type">
  <h2>Add a product type</h2>
  ${typeForm(context, `/console/stores/${store.id}/product-types`, 'Add product type', values, errors)}
</section>`,
  );
}

/** A product type's fields, to add one or change it. */
function typeForm(context: PageContext, action: string, button: string, values: TypeFormValues, errors: readonly FieldError[]): Html {
  const shown: Record<string, string> = { name: 'type-name', category: 'type-category', zone_weights: 'weight-chest' };
  for (const zone of ZONES) shown[`zone_weights.${zone}`] = `weight-${zone}`;
  return html`${errorSummary(errors, shown)}
  <form method="post" action="${action}" class="stack">
    ${csrfField(context)}
    <label for="type-name">Name</label>
    <input id="type-name" name="name" required maxlength="200" placeholder="T-shirt" value="${values.name}"${invalidAttributes(errors, 'name')}>
    ${fieldError(errors, 'name')}
    <label for="type-category">Category</label>
    <select id="type-category" name="category"${invalidAttributes(errors, 'category')}>${CATEGORIES.map(
      (category) =>
        html`<option value="${category}"${category === values.category ? ' selected' : ''}>${CATEGORY_LABELS[category]}</option>`,
    )}</select>
    ${fieldError(errors, 'category')}
    <fieldset class="weights"${invalidAttributes(errors, 'zone_weights', { hint: true })}>
      <legend>How much each measurement counts</legend>
      ${fieldHint('zone_weights', 'From 0 to 10; leave empty what does not matter. Weights are relative: chest 1 and waist 0.5 means the chest counts twice as much. The size chart must give a range for every measurement that counts.')}
      <div class="weight-grid">${ZONES.map(
        (zone) => html`<label for="weight-${zone}">${ZONE_LABELS[zone]}</label>
        <input id="weight-${zone}" name="weight_${zone}" inputmode="decimal" value="${values.weights[zone] ?? ''}"${invalidAttributes(errors, `zone_weights.${zone}`)}>`,
      )}</div>
    </fieldset>
    ${fieldError(errors, 'zone_weights')}${ZONES.map((zone) => fieldError(errors, `zone_weights.${zone}`))}
    <button type="submit" class="primary">${button}</button>
  </form>
`;
}

interface TypePage {
  readonly store: Store;
  readonly type: ProductTypeResponse;
  readonly values: TypeFormValues;
  readonly errors: readonly FieldError[];
  readonly saved?: boolean;
}

/** One product type, its fields editable. */
export function typePage(context: PageContext, page: TypePage): Html {
  const { store, type } = page;
  const base = `/console/stores/${store.id}/product-types`;
  return catalogLayout(
    context,
    store,
    'types',
    { title: type.name, invalid: page.errors.length > 0, crumbs: [{ label: 'Product types', href: base }, { label: type.name }] },
    html`<h1>${type.name}</h1>
${page.saved ? html`<p class="notice" role="status" data-status="saved">The product type is saved. Recommendations use it from now on.</p>` : ''}
<section class="card" id="edit-type">
  ${typeForm(context, `${base}/${type.id}`, 'Save product type', page.values, page.errors)}
</section>`,
  );
}

/** A type's fields as its form shows them. */
export const typeFormValues = (type: ProductTypeResponse): TypeFormValues => ({
  name: type.name,
  category: type.category,
  weights: Object.fromEntries(Object.entries(type.zone_weights).map(([zone, weight]) => [zone, String(weight)])),
});

// ———————————————————————————————————————— products ————————————————————————————————————————

export interface ProductFormValues {
  readonly title: string;
  readonly external_id: string;
  readonly product_type_id: string;
  readonly size_chart_id: string;
  readonly fit_adjustment: string;
  readonly variants: boolean;
}

export interface ProductFilters {
  readonly text: string;
  readonly product_type_id: string;
  readonly size_chart_id: string;
}

export interface ProductsPage {
  readonly store: Store;
  readonly products: readonly ProductResponse[];
  readonly more: string | null;
  readonly filters: ProductFilters;
  readonly types: readonly ProductTypeResponse[];
  readonly charts: readonly SizeChartResponse[];
  readonly form?: { readonly values: ProductFormValues; readonly errors: readonly FieldError[] };
  /** What the last bulk change did. */
  readonly bulk?: { readonly changed: number; readonly refused: ReadonlyArray<{ readonly title: string; readonly message: string }> };
  readonly bulkErrors?: readonly FieldError[];
  /** The product just added, and how many variants it got. */
  readonly added?: { readonly title: string; readonly variants: number };
}

export function productsPage(context: PageContext, page: ProductsPage): Html {
  const { store, filters } = page;
  const base = `/console/stores/${store.id}/products`;
  const typeName = new Map(page.types.map((type) => [type.id, type.name]));
  const chartName = new Map(page.charts.map((chart) => [chart.id, chart.name]));
  const filtered = Boolean(filters.text || filters.product_type_id || filters.size_chart_id);
  const bulkErrors = page.bulkErrors ?? [];
  const formErrors = page.form?.errors ?? [];
  const ready = page.types.length > 0 && page.charts.length > 0;
  return catalogLayout(
    context,
    store,
    'products',
    { title: 'Products', invalid: formErrors.length > 0 || bulkErrors.length > 0 },
    html`<h1>Products</h1>
${page.added ? html`<p class="notice" role="status" data-status="added">“${page.added.title}” added${page.added.variants ? html`, with a variant for each of its ${page.added.variants} sizes` : ''}.</p>` : ''}
${page.bulk ? bulkNotice(page.bulk) : ''}
<form method="get" action="${base}" class="filters" role="search" aria-label="Products">
  <div><label for="q">Title or platform id contains</label><input id="q" name="q" type="search" value="${filters.text}"></div>
  <div><label for="filter-type">Type</label><select id="filter-type" name="type"><option value="">Any type</option>${page.types.map(
    (type) => html`<option value="${type.id}"${type.id === filters.product_type_id ? ' selected' : ''}>${type.name}</option>`,
  )}</select></div>
  <div><label for="filter-chart">Size chart</label><select id="filter-chart" name="chart"><option value="">Any chart</option>${page.charts.map(
    (chart) => html`<option value="${chart.id}"${chart.id === filters.size_chart_id ? ' selected' : ''}>${chart.name}</option>`,
  )}</select></div>
  <button type="submit">Filter</button>${filtered ? html` <a href="${base}">Show all</a>` : ''}
</form>
<section class="card" id="products">
  ${
    page.products.length === 0
      ? html`<p class="empty" data-empty="products">${
          filtered
            ? 'No product matches these filters.'
            : ready
              ? 'No product yet. Add your first below, or have your shop’s backend send them (POST …/products).'
              : 'No product yet. A product needs a size chart and a product type: create those first, then add products here.'
        }</p>`
      : productTable(context, page, typeName, chartName, bulkErrors)
  }
  ${page.more ? html`<p><a href="${base}?${new URLSearchParams({ q: filters.text, type: filters.product_type_id, chart: filters.size_chart_id, after: page.more }).toString()}">More products →</a></p>` : ''}
</section>
${ready ? productForm(context, page) : html`<section class="card" id="new-product"><h2>Add a product</h2><p>First ${page.charts.length === 0 ? html`<a href="/console/stores/${store.id}/charts">create a size chart</a>` : ''}${page.charts.length === 0 && page.types.length === 0 ? ' and ' : ''}${page.types.length === 0 ? html`<a href="/console/stores/${store.id}/product-types">add a product type</a>` : ''}.</p></section>`}`,
  );
}

function bulkNotice(bulk: NonNullable<ProductsPage['bulk']>): Html {
  return html`<section class="card ${bulk.refused.length ? 'warning' : 'notice'}" role="status" data-status="bulk" data-changed="${String(bulk.changed)}">
  <p>${bulk.changed === 1 ? '1 product changed' : `${bulk.changed} products changed`}.${bulk.refused.length ? ` ${bulk.refused.length} could not be changed:` : ''}</p>
  ${bulk.refused.length ? html`<ul>${bulk.refused.map((r) => html`<li><strong>${r.title}</strong>: ${r.message}</li>`)}</ul>` : ''}
</section>`;
}

function productTable(
  context: PageContext,
  page: ProductsPage,
  typeName: Map<string, string>,
  chartName: Map<string, string>,
  errors: readonly FieldError[],
): Html {
  const base = `/console/stores/${page.store.id}/products`;
  return html`${errorSummary(errors, { ids: 'select-all', change: 'bulk-chart' })}
<form method="post" action="${base}/bulk" id="bulk-form">
  ${csrfField(context)}
  <input type="hidden" name="return" value="${new URLSearchParams({ q: page.filters.text, type: page.filters.product_type_id, chart: page.filters.size_chart_id }).toString()}">
  <div class="table-wrap" role="region" aria-label="Products" tabindex="0"><table id="product-list">
    <thead><tr><th scope="col"><input type="checkbox" id="select-all" data-selects="ids" aria-label="Select every product shown" hidden></th><th scope="col">Product</th><th scope="col">Platform id</th><th scope="col">Type</th><th scope="col">Size chart</th><th scope="col">Fit</th></tr></thead>
    <tbody>${page.products.map(
      (product) => html`<tr data-product-id="${product.id}">
      <td><input type="checkbox" name="ids" value="${product.id}" id="select-${product.id}" aria-label="Select ${product.title}"></td>
      <th scope="row"><label for="select-${product.id}">${product.title}</label></th>
      <td class="muted">${product.external_id ?? '–'}</td>
      <td class="type">${typeName.get(product.product_type_id) ?? '–'}</td>
      <td class="chart">${chartName.get(product.size_chart_id) ?? '–'}</td>
      <td class="fit" data-fit="${product.fit_adjustment}">${FIT_SHORT[product.fit_adjustment]}</td>
    </tr>`,
    )}</tbody>
  </table></div>
  <fieldset class="bulk">
    <legend>Change the selected products</legend>
    <div class="bulk-fields">
      <div><label for="bulk-chart">Size chart</label><select id="bulk-chart" name="size_chart_id"><option value="">Keep as is</option>${page.charts.map(
        (chart) => html`<option value="${chart.id}">${chart.name}</option>`,
      )}</select></div>
      <div><label for="bulk-type">Type</label><select id="bulk-type" name="product_type_id"><option value="">Keep as is</option>${page.types.map(
        (type) => html`<option value="${type.id}">${type.name}</option>`,
      )}</select></div>
      <div><label for="bulk-fit">Fit</label><select id="bulk-fit" name="fit_adjustment"><option value="">Keep as is</option>${FIT_ADJUSTMENTS.map(
        (fit) => html`<option value="${fit}">${FIT_LABELS[fit]}</option>`,
      )}</select></div>
    </div>
    ${fieldError(errors, 'ids')}${fieldError(errors, 'change')}
    <button type="submit" class="primary">Apply to selected</button>
  </fieldset>
</form>`;
}

function productForm(context: PageContext, page: ProductsPage): Html {
  const errors = page.form?.errors ?? [];
  const values = page.form?.values ?? {
    title: '',
    external_id: '',
    product_type_id: page.types[0]?.id ?? '',
    size_chart_id: page.charts[0]?.id ?? '',
    fit_adjustment: 'true_to_size',
    variants: true,
  };
  return html`<section class="card" id="new-product">
  <h2>Add a product</h2>
  ${errorSummary(errors, {
    title: 'product-title',
    external_id: 'product-external-id',
    product_type_id: 'product-type',
    size_chart_id: 'product-chart',
    fit_adjustment: 'product-fit',
  })}
  <form method="post" action="/console/stores/${page.store.id}/products" class="stack">
    ${csrfField(context)}
    <label for="product-title">Title</label>
    <input id="product-title" name="title" required maxlength="500" placeholder="Classic crew tee" value="${values.title}"${invalidAttributes(errors, 'title')}>
    ${fieldError(errors, 'title')}
    <label for="product-external-id">Platform id <span class="muted">(optional)</span></label>
    <input id="product-external-id" name="external_id" maxlength="255" spellcheck="false" value="${values.external_id}"${invalidAttributes(errors, 'external_id', { hint: true })}>
    ${fieldHint('external_id', 'The id your shop gives this product, so that your backend can find it: gid://shopify/Product/… on Shopify.')}
    ${fieldError(errors, 'external_id')}
    <label for="product-type">Type</label>
    <select id="product-type" name="product_type_id"${invalidAttributes(errors, 'product_type_id')}>${page.types.map(
      (type) => html`<option value="${type.id}"${type.id === values.product_type_id ? ' selected' : ''}>${type.name}</option>`,
    )}</select>
    ${fieldError(errors, 'product_type_id')}
    <label for="product-chart">Size chart</label>
    <select id="product-chart" name="size_chart_id"${invalidAttributes(errors, 'size_chart_id')}>${page.charts.map(
      (chart) => html`<option value="${chart.id}"${chart.id === values.size_chart_id ? ' selected' : ''}>${chart.name}</option>`,
    )}</select>
    ${fieldError(errors, 'size_chart_id')}
    <label for="product-fit">Fit</label>
    <select id="product-fit" name="fit_adjustment"${invalidAttributes(errors, 'fit_adjustment')}>${FIT_ADJUSTMENTS.map(
      (fit) => html`<option value="${fit}"${fit === values.fit_adjustment ? ' selected' : ''}>${FIT_LABELS[fit]}</option>`,
    )}</select>
    ${fieldError(errors, 'fit_adjustment')}
    <label class="check"><input type="checkbox" id="product-variants" name="variants" value="1"${values.variants ? ' checked' : ''}>
    <span>Add a variant for each size of the chart <span class="muted">(recommendations name the variant to add to the cart)</span></span></label>
    <button type="submit" class="primary">Add product</button>
  </form>
</section>`;
}
