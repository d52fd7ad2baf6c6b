import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { auditConsoleAnswers, expectErrorPage, expectPage, find, findAll, signUp } from '../../support/console-client.js';
import { eventBody, uniqueId } from '../../support/event-fixtures.js';
import { newMetricsShop, type MetricsShop } from '../../support/metrics-fixtures.js';
import { createShop } from '../../support/session-fixtures.js';

/** The seller console's "How products fit" pages, against the API's figures for the same store. */
describe('seller console: how products fit', () => {
  const t = useApp();
  auditConsoleAnswers();

  /** `lines` lines of the product bought in M and returned for size, `fit_feedback` as given. */
  async function returned(shop: MetricsShop, productId: string, variantId: string, lines: number, fit_feedback: string) {
    const events = [];
    for (let i = 0; i < lines; i++) {
      const line = { product_id: productId, variant_id: variantId, order_id: uniqueId('o'), line_item_id: uniqueId('l') };
      events.push(eventBody('purchase', shop, line), eventBody('return_requested', shop, { ...line, fit_feedback }));
    }
    const response = await t.http().post(`/v1/stores/${shop.storeId}/events/batch`).set(bearer(shop.secret)).send({ events });
    expect(response.status).toBe(200);
  }

  it('lists the products with outcomes, sortable by each column, each linking to its sizes', async () => {
    const shop = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    const empty = await client.get(`/console/stores/${shop.storeId}/product-fit`);
    expectPage(empty, 200);
    expect(find(empty.text, 'p', { id: 'no-products' }).text).toMatch(/No outcome/);

    const other = await createShop(t, shop.storeId, shop.secret);
    const renamed = await t
      .http()
      .patch(`/v1/stores/${shop.storeId}/products/${other.productId}`)
      .set(bearer(shop.secret))
      .send({ title: 'A-line tee' });
    expect(renamed.status).toBe(200);
    const shopTitle = (await t.http().get(`/v1/stores/${shop.storeId}/products/${shop.productId}`).set(bearer(shop.secret))).body.title;
    await returned(shop, shop.productId, shop.variants.M, 25, 'too_small');
    await returned(shop, other.productId, other.variants.L, 20, 'too_large');

    const page = await client.get(`/console/stores/${shop.storeId}/product-fit`);
    expectPage(page, 200);
    const rows = () => findAll(find(page.text, 'table', { id: 'product-fit' }).inner, 'tr', { 'data-product-id': true });
    expect(rows().map((r) => [r.attrs['data-product-id'], r.attrs['data-direction']])).toEqual([
      [shop.productId, 'runs_small'],
      [other.productId, 'runs_large'],
    ]);
    const api = await t.http().get(`/v1/stores/${shop.storeId}/products/${shop.productId}/fit`).set(bearer(shop.secret));
    expect(rows()[0].text).toContain(`+${api.body.learned.size_steps.toFixed(2)}`);

    const byTitle = await client.get(`/console/stores/${shop.storeId}/product-fit?sort=title`);
    const titles = findAll(find(byTitle.text, 'table', { id: 'product-fit' }).inner, 'tr', { 'data-product-id': true }).map(
      (row) => find(row.inner, 'a').text,
    );
    expect(titles).toEqual(['A-line tee', shopTitle]);
    // an unknown sort is the default order, not an error
    expectPage(await client.get(`/console/stores/${shop.storeId}/product-fit?sort=%3Cscript%3E`), 200);

    const detail = await client.get(`/console/stores/${shop.storeId}/product-fit/${shop.productId}`);
    expectPage(detail, 200);
    expect(find(detail.text, 'section', { id: 'learned' }).attrs['data-direction']).toBe('runs_small');
    // in a sentence, with what it was learned from
    expect(find(detail.text, 'p', { class: 'sentence' }).text).toMatch(
      /^Runs (a little|about (half a|a|[\d.]+) sizes?) small, from 25 returns\.$/,
    );
    const listed = find(find(page.text, 'table', { id: 'product-fit' }).inner, 'tr', { 'data-product-id': other.productId });
    expect(find(listed.inner, 'td', { class: 'sentence' }).text).toMatch(/^Runs .* large/);
    // both tables may be wider than a phone: each scrolls in a named region that the keyboard can reach
    for (const [html, label] of [
      [page.text, 'Products by fit'],
      [detail.text, 'Outcomes by size'],
    ]) {
      expect(find(html, 'div', { class: 'table-wrap' }).attrs).toMatchObject({ role: 'region', 'aria-label': label, tabindex: '0' });
    }
    const m = find(find(detail.text, 'table', { id: 'sizes' }).inner, 'tr', { 'data-size': 'M' });
    expect(findAll(m.inner, 'td').map((td) => td.text.split(' ')[0])).toEqual(['25', '0', '25', '0', '25', '0']);
  });

  it('shows another store’s product as not found', async () => {
    const shop = await newMetricsShop(t);
    const stranger = await newMetricsShop(t);
    const client = await signUp(t, shop.tenant);
    expectErrorPage(await client.get(`/console/stores/${shop.storeId}/product-fit/${stranger.productId}`), 404, 'not_found');
  });
});
