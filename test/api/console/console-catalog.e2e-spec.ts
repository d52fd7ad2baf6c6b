import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import {
  auditConsoleAnswers,
  type ConsoleClient,
  errorCode,
  expectFieldErrors,
  expectPage,
  expectSeeOther,
  fieldErrors,
  find,
  formError,
  findAll,
  signUp,
  storeIds,
} from '../../support/console-client.js';
import { createTenant, type Tenant } from '../../support/fixtures.js';
import { LABEL_SYSTEMS, SIZE_CHART_TEMPLATES } from '../../../src/console/catalog/size-chart-templates.js';

/**
 * Setting a store up in the console (docs/decisions/005-seller-console.md): a store, size charts from templates, CSV
 * and the edit grid, product types, products one at a time and many at once. Each change goes through the catalog's
 * services, so the API reads what the console wrote, and the console refuses what the API refuses.
 */

describe('seller console: store and catalog set-up', () => {
  const t = useApp();
  auditConsoleAnswers();

  const api = (tenant: Tenant, path: string) => t.http().get(path).set(bearer(tenant.admin.secret));
  const idFrom = (location: string, pattern: RegExp) => pattern.exec(location)?.[1] ?? '';

  async function chartFromTemplate(me: ConsoleClient, storeId: string, template = 'women-tops', labels = 'EU', name = ''): Promise<string> {
    await me.page(`/console/stores/${storeId}/charts`);
    const created = await me.post(`/console/stores/${storeId}/charts`, { template, labels, name });
    expect(created.status).toBe(303);
    return idFrom(created.headers.location as string, /charts\/([0-9a-f-]{36})$/);
  }

  async function productType(me: ConsoleClient, storeId: string, name: string, weights: Record<string, string>): Promise<string> {
    await me.page(`/console/stores/${storeId}/product-types`);
    const form = Object.fromEntries(Object.entries(weights).map(([zone, weight]) => [`weight_${zone}`, weight]));
    const created = await me.post(`/console/stores/${storeId}/product-types`, { name, category: 'tops', ...form });
    expectSeeOther(created, `/console/stores/${storeId}/product-types`);
    const page = (await me.page(`/console/stores/${storeId}/product-types`)).text;
    const row = findAll(page, 'tr', { 'data-type-id': true }).find((tr) => tr.text.includes(name));
    return row?.attrs['data-type-id'] ?? '';
  }

  it('creates a store from the stores page, refusing a bad currency in the API’s words, and changes its settings', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const refused = await me.post('/console/stores', { name: 'Acme <b>EU</b>', currency: 'euro', unit_system: 'metric' });
    expectFieldErrors(refused, ['currency']);
    expect(fieldErrors(refused.text).currency).toBe('currency must be an ISO 4217 code such as EUR');
    expect(find(refused.text, 'input', { id: 'store-name' }).attrs.value).toBe('Acme <b>EU</b>');

    const created = await me.post('/console/stores', { name: 'Acme <b>EU</b>', currency: 'eur', unit_system: 'imperial' });
    expect(created.status).toBe(303);
    const storeId = idFrom(created.headers.location as string, /stores\/([0-9a-f-]{36})\?created=1$/);
    const page = await me.page(`/console/stores/${storeId}?created=1`);
    expect(page.text).toContain('<h1>Acme &lt;b&gt;EU&lt;/b&gt;</h1>');
    expect(find(page.text, 'p', { 'data-status': 'created' }).text).toMatch(/size charts, product types, then products/);
    const steps = (html: string) =>
      findAll(find(html, 'section', { id: 'setup' }).inner, 'li', { 'data-step': true }).map((li) => [
        li.attrs['data-step'],
        li.attrs['data-done'],
        /\bnext\b/.test(li.text),
      ]);
    expect(steps(page.text)).toEqual([
      ['charts', 'false', true],
      ['types', 'false', false],
      ['products', 'false', false],
    ]);
    await chartFromTemplate(me, storeId);
    expect(steps((await me.page(`/console/stores/${storeId}`)).text)).toEqual([
      ['charts', 'true', false],
      ['types', 'false', true],
      ['products', 'false', false],
    ]);
    expect(storeIds((await me.page('/console')).text)).toContain(storeId);
    const stored = await api(tenant, `/v1/stores/${storeId}`);
    expect(stored.body).toMatchObject({ name: 'Acme <b>EU</b>', currency: 'EUR', unit_system: 'imperial' });

    await me.page(`/console/stores/${storeId}`);
    expectFieldErrors(await me.post(`/console/stores/${storeId}/settings`, { name: ' ', currency: 'EUR', unit_system: 'metric' }), [
      'name',
    ]);
    const saved = await me.post(`/console/stores/${storeId}/settings`, { name: 'Acme Europe', currency: 'GBP', unit_system: 'metric' });
    expectSeeOther(saved, `/console/stores/${storeId}`);
    expect((await api(tenant, `/v1/stores/${storeId}`)).body).toMatchObject({
      name: 'Acme Europe',
      currency: 'GBP',
      unit_system: 'metric',
    });
  });

  it('makes a valid chart from every template in EU, US and UK labels, as the API then reads it', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    for (const template of SIZE_CHART_TEMPLATES) {
      for (const labels of LABEL_SYSTEMS) {
        const chartId = await chartFromTemplate(me, tenant.storeId, template.id, labels);
        const chart = await api(tenant, `/v1/stores/${tenant.storeId}/size-charts/${chartId}`);
        expect(chart.status).toBe(200);
        expect(chart.body).toMatchObject({ name: `${template.title} (${labels})`, unit: 'cm', measurement_type: 'body' });
        expect(chart.body.sizes).toEqual(template.sizes(labels));
        expect(Object.keys(chart.body.sizes[0].measurements).sort()).toEqual([...template.zones].sort());
      }
    }
    const list = (await me.page(`/console/stores/${tenant.storeId}/charts`)).text;
    expect(findAll(list, 'tr', { 'data-chart-id': true })).toHaveLength(SIZE_CHART_TEMPLATES.length * LABEL_SYSTEMS.length);
    // women's EU 38 is UK 12 and US 8
    const women = SIZE_CHART_TEMPLATES[0];
    const index = women.sizes('EU').findIndex((size) => size.label === '38');
    expect([women.sizes('UK')[index].label, women.sizes('US')[index].label]).toEqual(['12', '8']);
    expectFieldErrors(await me.post(`/console/stores/${tenant.storeId}/charts`, { template: 'men-dresses', labels: 'FR' }), [
      'labels',
      'template',
    ]);
  });

  it('edits a chart in its grid: each refused cell named by the catalog’s rule, a size added, a row emptied to drop it', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const chartId = await chartFromTemplate(me, tenant.storeId, 'men-tops', 'EU', 'Shirts');
    const path = `/console/stores/${tenant.storeId}/charts/${chartId}`;
    const page = (await me.page(path)).text;
    const form: Record<string, string> = {};
    for (const input of findAll(find(page, 'form', { id: 'chart-form' }).inner, 'input', { name: true })) {
      if (input.attrs.name !== '_csrf') form[input.attrs.name] = input.attrs.value ?? '';
    }
    expect(form.zones).toBe('chest,waist');
    expect(findAll(page, 'figure', { 'data-zone': true }).map((f) => f.attrs['data-zone'])).toEqual(['chest', 'waist']);

    // size 46's chest range upside down, size 48's not a number, size 50 with one end only
    const refused = await me.post(path, {
      ...form,
      size_1_chest_min: '96',
      size_1_chest_max: '90',
      size_2_waist_min: 'abc',
      size_3_chest_max: '',
    });
    expect(refused.status).toBe(422);
    expect(fieldErrors(refused.text)).toEqual({
      'sizes[2].measurements.waist': 'Write each end as a number, such as 86 or 86.5',
      'sizes[3].measurements.chest': 'Give both ends of the range, or neither',
    });
    expect(find(refused.text, 'input', { id: 'size-2-waist' }).attrs).toMatchObject({ value: 'abc', 'aria-invalid': 'true' });
    const ruled = await me.post(path, { ...form, size_1_chest_min: '96', size_1_chest_max: '90' });
    expect(ruled.status).toBe(422);
    expect(fieldErrors(ruled.text)).toEqual({ 'sizes[1].measurements.chest': 'min must be below max' });
    expect(find(ruled.text, 'title').text).toMatch(/^Error: /);
    expect(findAll(ruled.text, 'a', { href: '#size-1-chest' })).toHaveLength(1);

    // the first row emptied; a size added in the first empty row
    const rows = Number(form.rows);
    const added = rows - 2;
    const saved = await me.post(path, {
      ...form,
      size_0_label: '',
      size_0_chest_min: '',
      size_0_chest_max: '',
      size_0_waist_min: '',
      size_0_waist_max: '',
      [`size_${added}_label`]: '60',
      [`size_${added}_chest_min`]: '118',
      [`size_${added}_chest_max`]: '124',
      [`size_${added}_waist_min`]: '106',
      [`size_${added}_waist_max`]: '112',
    });
    expectSeeOther(saved, path);
    const chart = (await api(tenant, `/v1/stores/${tenant.storeId}/size-charts/${chartId}`)).body;
    expect(chart.sizes.map((size: { label: string }) => size.label)).toEqual(['46', '48', '50', '52', '54', '56', '58', '60']);
    expect(chart.sizes.at(-1).measurements).toEqual({ chest: { min: 118, max: 124 }, waist: { min: 106, max: 112 } });
  });

  it('exports a chart as CSV and imports it back; a refused file names each row and column', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const chartId = await chartFromTemplate(me, tenant.storeId, 'children-bottoms', 'UK');
    const csv = await me.get(`/console/stores/${tenant.storeId}/charts/${chartId}/csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename=".+\.csv"$/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('size,waist_min,waist_max,hip_min,hip_max');
    expect(lines[1]).toBe('3-4 Y,49,53,55,59');

    await me.page(`/console/stores/${tenant.storeId}/charts`);
    const imported = await me.post(`/console/stores/${tenant.storeId}/charts/import`, { name: 'Kids trousers', csv: csv.text });
    expect(imported.status).toBe(303);
    const copy = idFrom(imported.headers.location as string, /charts\/([0-9a-f-]{36})$/);
    const original = (await api(tenant, `/v1/stores/${tenant.storeId}/size-charts/${chartId}`)).body;
    expect((await api(tenant, `/v1/stores/${tenant.storeId}/size-charts/${copy}`)).body.sizes).toEqual(original.sizes);

    const broken = ['size;waist_min;waist_max', 'S;60;64', 'M;sixty;70', 'L;62;', 'XL;70;66'].join('\n');
    const typed = await me.post(`/console/stores/${tenant.storeId}/charts/import`, { name: 'Broken', csv: broken });
    expect(typed.status).toBe(422);
    const problems = (html: string) =>
      findAll(find(html, 'div', { id: 'import-errors' }).inner, 'li').map((li) => ({
        row: li.attrs['data-row'],
        column: li.attrs['data-column'],
      }));
    expect(problems(typed.text)).toEqual([
      { row: '3', column: 'waist_min' },
      { row: '4', column: 'waist_max' },
    ]);
    expect(findAll(typed.text, 'td', { class: 'cell-error' }).map((td) => td.text)).toEqual(['sixty (refused)', '(refused)']);
    const ruled = await me.post(`/console/stores/${tenant.storeId}/charts/import`, {
      name: 'Ruled',
      csv: 'size,waist_min,waist_max\nS,60,64\nM,64,68\nM,58,62\n',
    });
    expect(ruled.status).toBe(422);
    expect(problems(ruled.text)).toEqual([
      { row: '4', column: 'size' },
      { row: '4', column: 'waist_min' },
    ]);
    expect(find(ruled.text, 'div', { id: 'import-errors' }).text).toContain('the label M is used twice');
  });

  it('adds product types and products with a variant per size, finds them, and changes many at once', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const base = `/console/stores/${tenant.storeId}`;
    const empty = (await me.page(`${base}/products`)).text;
    expect(find(empty, 'p', { 'data-empty': 'products' }).text).toMatch(/needs a size chart and a product type: create those first/);

    await me.page(`${base}/product-types`);
    const badType = await me.post(`${base}/product-types`, { name: 'Tee', category: 'tops', weight_chest: 'lots', weight_waist: '11' });
    expectFieldErrors(badType, ['zone_weights.chest']);
    const outOfRange = await me.post(`${base}/product-types`, { name: 'Tee', category: 'tops', weight_waist: '11' });
    expect(fieldErrors(outOfRange.text)).toEqual({ 'zone_weights.waist': 'the weight of waist must be from 0 to 10' });

    const tops = await chartFromTemplate(me, tenant.storeId, 'women-tops', 'EU', 'Tops');
    const bottoms = await chartFromTemplate(me, tenant.storeId, 'women-bottoms', 'EU', 'Bottoms');
    const tee = await productType(me, tenant.storeId, 'T-shirt', { chest: '1', waist: '0.5' });
    const trousers = await productType(me, tenant.storeId, 'Trousers', { waist: '1', hip: '1' });

    await me.page(`${base}/products`);
    const added = await me.post(`${base}/products`, {
      title: 'Crew tee <navy>',
      external_id: 'gid://shopify/Product/1',
      product_type_id: tee,
      size_chart_id: tops,
      fit_adjustment: 'true_to_size',
      variants: '1',
    });
    expect(added.status).toBe(303);
    const productId = idFrom(added.headers.location as string, /added=([0-9a-f-]{36})$/);
    const notice = find((await me.page(added.headers.location as string)).text, 'p', { 'data-status': 'added' });
    expect(notice.text).toBe('“Crew tee <navy>” added, with a variant for each of its 9 sizes.');
    const variants = await api(tenant, `/v1/stores/${tenant.storeId}/products/${productId}/variants?limit=100`);
    expect(variants.body.data.map((v: { size_label: string }) => v.size_label)).toEqual([
      '32',
      '34',
      '36',
      '38',
      '40',
      '42',
      '44',
      '46',
      '48',
    ]);

    // a shopper gets a recommendation on it, naming one of the variants the console made
    const session = await t
      .http()
      .post(`/v1/stores/${tenant.storeId}/sessions`)
      .set(bearer(tenant.admin.secret))
      .send({ product_id: productId });
    expect(session.status).toBe(201);
    const answered = await t
      .http()
      .post(`/v1/stores/${tenant.storeId}/sessions/${session.body.id}/answers`)
      .set(bearer(tenant.admin.secret))
      .send({ answers: { height: { value: 168, unit: 'cm' }, weight: { value: 62, unit: 'kg' }, age: 34, sex: 'female' } });
    expect(answered.status).toBeLessThan(300);
    const recommended = answered.body.recommendation as { size_label: string; variant_id: string | null };
    const variant = (variants.body.data as { id: string; size_label: string }[]).find((v) => v.id === recommended.variant_id);
    expect(variant?.size_label).toBe(recommended.size_label);

    // a type weighing zones the chart lacks is refused, in the catalog's words, on the chart's field
    const mismatch = await me.post(`${base}/products`, {
      title: 'Tee on trousers',
      product_type_id: tee,
      size_chart_id: bottoms,
      fit_adjustment: 'true_to_size',
    });
    expectFieldErrors(mismatch, ['size_chart_id']);
    const taken = await me.post(`${base}/products`, {
      title: 'Copy',
      external_id: 'gid://shopify/Product/1',
      product_type_id: tee,
      size_chart_id: tops,
      fit_adjustment: 'true_to_size',
    });
    expectFieldErrors(taken, ['external_id']);

    // the T-shirt type edited: a weight its products' chart does not state is refused, naming the zone; then saved
    const typePath = `${base}/product-types/${tee}`;
    const typeForm = (await me.page(typePath)).text;
    expect(find(typeForm, 'input', { id: 'weight-waist' }).attrs.value).toBe('0.5');
    const hip = await me.post(typePath, { name: 'T-shirt', category: 'tops', weight_chest: '1', weight_waist: '0.5', weight_hip: '1' });
    expect(hip.status).toBe(422);
    expect(Object.values(fieldErrors(hip.text)).join(' ') + (formError(hip.text)?.text ?? '')).toMatch(/hip/);
    expectSeeOther(await me.post(typePath, { name: 'Tee', category: 'tops', weight_chest: '1', weight_waist: '1' }), typePath);
    expect((await api(tenant, `/v1/stores/${tenant.storeId}/product-types/${tee}`)).body).toMatchObject({
      name: 'Tee',
      zone_weights: { chest: 1, waist: 1 },
    });

    for (const title of ['Slim chino', 'Wide chino', 'Linen trousers']) {
      await me.post(`${base}/products`, { title, product_type_id: trousers, size_chart_id: bottoms, fit_adjustment: 'true_to_size' });
    }
    const titles = (html: string) => findAll(html, 'tr', { 'data-product-id': true }).map((tr) => find(tr.inner, 'label').text);
    expect(titles((await me.page(`${base}/products?q=chino`)).text)).toEqual(['Wide chino', 'Slim chino']);
    expect(titles((await me.page(`${base}/products?q=SHOPIFY/product`)).text)).toEqual(['Crew tee <navy>']);
    expect(titles((await me.page(`${base}/products?type=${trousers}`)).text)).toHaveLength(3);
    expect(titles((await me.page(`${base}/products?chart=${tops}`)).text)).toEqual(['Crew tee <navy>']);
    expect(find((await me.page(`${base}/products?q=%25`)).text, 'p', { 'data-empty': 'products' }).text).toBe(
      'No product matches these filters.',
    );

    // many at once: two chinos run small; the tee cannot take the trousers' chart, and says why
    const list = (await me.page(`${base}/products?q=chino`)).text;
    const ids = findAll(list, 'tr', { 'data-product-id': true }).map((tr) => tr.attrs['data-product-id']);
    expectFieldErrors(await me.post(`${base}/products/bulk`, { ids, return: 'q=chino' }), ['change']);
    const bulk = await me.post(`${base}/products/bulk`, { ids, fit_adjustment: 'runs_small', return: 'q=chino' });
    expectPage(bulk, 200);
    expect(find(bulk.text, 'section', { 'data-status': 'bulk' }).attrs['data-changed']).toBe('2');
    expect(titles(bulk.text)).toEqual(['Wide chino', 'Slim chino']);
    for (const id of ids) expect((await api(tenant, `/v1/stores/${tenant.storeId}/products/${id}`)).body.fit_adjustment).toBe('runs_small');
    const bottomsUk = await chartFromTemplate(me, tenant.storeId, 'women-bottoms', 'UK', 'Bottoms UK');
    await me.page(`${base}/products`);
    const mixed = await me.post(`${base}/products/bulk`, { ids: [...ids, productId], size_chart_id: bottomsUk, product_type_id: trousers });
    const result = find(mixed.text, 'section', { 'data-status': 'bulk' });
    expect(result.attrs['data-changed']).toBe('2');
    expect(result.text).toMatch(/Crew tee <navy> ?: the new chart lacks the sizes 32, 34/);
  });

  it('refuses each set-up form without the page’s CSRF token, changing nothing', async () => {
    const tenant = await createTenant(t);
    const me = await signUp(t, tenant);
    const chartId = await chartFromTemplate(me, tenant.storeId);
    const base = `/console/stores/${tenant.storeId}`;
    for (const path of [
      '/console/stores',
      `${base}/settings`,
      `${base}/charts`,
      `${base}/charts/import`,
      `${base}/charts/${chartId}`,
      `${base}/product-types`,
      `${base}/products`,
      `${base}/products/bulk`,
    ]) {
      for (const csrf of [null, 'forged-token']) {
        const refused = await me.post(path, { name: 'forged' }, { csrf });
        expect({ path, csrf, status: refused.status, code: errorCode(refused.text) }).toEqual({
          path,
          csrf,
          status: 403,
          code: 'csrf_failed',
        });
      }
    }
    expect((await api(tenant, `/v1/stores?limit=100`)).body.data).toHaveLength(1);
    expect((await api(tenant, `/v1/stores/${tenant.storeId}/size-charts`)).body.data).toHaveLength(1);
  });
});
