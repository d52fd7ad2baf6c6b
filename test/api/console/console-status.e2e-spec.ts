import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { auditConsoleAnswers, expectErrorPage, expectPage, find, findAll, signUp } from '../../support/console-client.js';
import { eventBody } from '../../support/event-fixtures.js';
import { createTenant } from '../../support/fixtures.js';
import { createShop } from '../../support/session-fixtures.js';

/**
 * A store's integration status in the console (docs/decisions/005-seller-console.md, "Status panel"): the last event of
 * each kind, today's sessions and purchases, and the API requests of the store the service refused lately.
 */
describe('seller console: integration status', () => {
  const t = useApp();
  auditConsoleAnswers();

  const refusalRows = (html: string) =>
    findAll(find(html, 'section', { id: 'refusals' }).inner, 'tr', { 'data-code': true }).map((tr) => ({
      code: tr.attrs['data-code'],
      status: tr.attrs['data-status'],
      text: tr.text,
    }));

  it('says what to send first, then what arrived, today’s counts, and each refused request with its problem code', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const me = await signUp(t, tenant);
    const path = `/console/stores/${tenant.storeId}/status`;
    const silent = await me.get(path);
    expectPage(silent, 200);
    expect(find(silent.text, 'section', { id: 'verdict' }).attrs['data-state']).toBe('silent');
    expect(find(silent.text, 'section', { id: 'verdict' }).text).toMatch(/Send first a fit session/);
    expect(find(silent.text, 'p', { 'data-empty': 'refusals' }).text).toBe('None refused.');

    const shop = await createShop(t, tenant.storeId, tenant.admin.secret);
    const events = `/v1/stores/${tenant.storeId}/events`;
    const session = await t
      .http()
      .post(`/v1/stores/${tenant.storeId}/sessions`)
      .set(bearer(tenant.admin.secret))
      .send({ product_id: shop.productId });
    expect(session.status).toBe(201);
    const bought = await t.http().post(events).set(bearer(tenant.admin.secret)).send(eventBody('purchase', shop));
    expect(bought.status).toBe(201);
    // refused: a purchase without its order line; a body that is not JSON; and requests this store never admitted
    const refused = await t
      .http()
      .post(events)
      .set(bearer(tenant.admin.secret))
      .send({ ...eventBody('purchase', shop), order_id: undefined });
    expect(refused.status).toBe(400);
    const garbled = await t.http().post(events).set(bearer(tenant.admin.secret)).set('Content-Type', 'application/json').send('{"type":');
    expect(garbled.status).toBe(400);
    expect((await t.http().post(events).send(eventBody('purchase', shop))).status).toBe(401);
    const elsewhere = await t.http().post(`/v1/stores/${other.storeId}/events`).set(bearer(other.admin.secret)).send({ type: 'purchase' });
    expect(elsewhere.status).toBe(400);

    const page = await me.get(path);
    expectPage(page, 200);
    expect(find(page.text, 'section', { id: 'verdict' }).attrs['data-state']).toBe('refusing');
    const today = find(page.text, 'section', { id: 'today' });
    expect(find(today.inner, 'span', { 'data-count': 'sessions' }).text).toBe('1 fit session');
    expect(find(today.inner, 'span', { 'data-count': 'purchases' }).text).toBe('1 purchase');
    const rows = findAll(find(page.text, 'section', { id: 'events' }).inner, 'tr', { 'data-type': true });
    expect(rows).toHaveLength(12);
    const last = Object.fromEntries(rows.map((row) => [row.attrs['data-type'], row.attrs['data-last']]));
    expect(last.purchase).toMatch(/^\d{4}-/);
    expect(last.fit_started).toMatch(/^\d{4}-/);
    expect(last.item_kept).toBe('');
    expect(refusalRows(page.text)).toEqual([
      { code: 'invalid_json', status: '400', text: expect.stringContaining('POST /v1/stores/:store_id/events') as unknown },
      { code: 'validation_failed', status: '400', text: expect.stringMatching(/order_id/) as unknown },
    ]);
    expect(refusalRows(page.text)[1].text).toContain(refused.body.request_id);
    expect(findAll(page.text, 'a', { href: '/problems/validation_failed' })).toHaveLength(1);

    // the other merchant's store sees its own refusal, never this one's; and this store is not theirs to read
    const them = await signUp(t, other);
    const theirs = refusalRows((await them.page(`/console/stores/${other.storeId}/status`)).text);
    expect(theirs.map((row) => row.code)).toEqual(['validation_failed']);
    expectErrorPage(await them.get(path), 404, 'not_found');
  });
});
