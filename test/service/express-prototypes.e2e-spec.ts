import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { bearer, useApp } from '../support/app.js';
import { createTenant } from '../support/fixtures.js';

/**
 * Express swaps the prototype of every request and response it is handed for its own; done on objects already made,
 * that costs each of them its hidden class and the whole pipeline its inline caches (docs/performance.md). The
 * server makes them with Express's prototypes instead, so that the swap finds nothing to change.
 */
describe('requests and responses are made as Express objects', () => {
  const t = useApp();

  it('before Express sees them, and answer as before', async () => {
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
});
