import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { bearer, useApp } from '../../support/app.js';
import { createTenant } from '../../support/fixtures.js';

/**
 * The HTTP server under Express (bounded-express-adapter.ts). Express swaps the prototype of every request and
 * response it is handed for its own; done on objects already made, that costs each of them its hidden class and the
 * whole pipeline its inline caches, so the server makes them with Express's prototypes instead. JSON answers are
 * written without `res.json`'s detours (docs/performance.md).
 */
describe('the HTTP server', () => {
  const t = useApp();

  it('makes requests and responses as Express objects before Express sees them', async () => {
    const express = t.app.getHttpAdapter().getInstance() as Express;
    const server = t.app.getHttpServer() as unknown as Server;
    const seen: boolean[] = [];
    const probe = (request: IncomingMessage, response: ServerResponse): void => {
      seen.push(Object.getPrototypeOf(request) === express.request, Object.getPrototypeOf(response) === express.response);
    };
    server.prependListener('request', probe);
    try {
      const { admin } = await createTenant(t);
      const stores = await t.http().get('/v1/stores').set(bearer(admin.secret));
      expect(stores.status).toBe(200);
      expect((await t.http().get('/nope')).status).toBe(404);
    } finally {
      server.removeListener('request', probe);
    }
    expect(seen.length).toBeGreaterThanOrEqual(6);
    expect(seen.every(Boolean)).toBe(true);
  });

  it('writes JSON answers as Express would: type with charset, exact length, and no body for HEAD', async () => {
    const { admin } = await createTenant(t);
    const created = await t.http().post('/v1/stores').set(bearer(admin.secret)).send({ name: 'Ünïcode stōre €' });
    expect(created.status).toBe(201);
    for (const response of [created, await t.http().get(`/v1/stores/${created.body.id}`).set(bearer(admin.secret))]) {
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
      expect(JSON.parse(response.text)).toEqual(created.body);
    }
    const get = await t.http().get('/v1/stores').set(bearer(admin.secret));
    const head = await t.http().head('/v1/stores').set(bearer(admin.secret));
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.text ?? '').toBe('');
  });
});
