/**
 * The real service for the kit's tests: started in this process as the suite starts it (embedded database, or
 * PostgreSQL when DATABASE_URL is set), listening on a free port of 127.0.0.1 so that the kit talks to it with fetch,
 * as an integrator's server would.
 *
 * Every `/v1` answer the kit receives through `fetch` is checked against the OpenAPI document after the file's tests,
 * as test/support/contract-audit.ts does for supertest: the generated types are only as true as the document.
 */
import { Server } from 'node:http';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { OPERATOR_KEY, startApp, type TestApp } from '../../test/support/app.js';
import { servedDocument } from '../../test/support/contract-document.js';
import { type Answer, type ContractDocument, contractViolations } from '../../test/support/contract-violations.js';
import type { FetchFunction } from '../client/size-fit.js';

export interface KitService {
  readonly baseUrl: string;
  readonly operatorKey: string;
  /** globalThis.fetch, recording each `/v1` answer for the contract check. */
  readonly fetch: FetchFunction;
}

/** One service for the enclosing `describe` block; use the returned object only inside tests and hooks. */
export function useService(): KitService {
  let app: TestApp | undefined;
  let baseUrl: string | undefined;
  const answers: Answer[] = [];

  beforeAll(async () => {
    app = await startApp();
    const server: unknown = await app.app.listen(0, '127.0.0.1');
    const address = server instanceof Server ? server.address() : null;
    if (typeof address !== 'object' || address === null) throw new Error('the service is not listening on a port');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await app?.close();
    if (process.env.CONTRACT_AUDIT === '0' || answers.length === 0) return;
    expect(contractViolations((await servedDocument()) as ContractDocument, answers)).toEqual([]);
  });

  const fetch: FetchFunction = async (request) => {
    const method = request.method.toLowerCase();
    const response = await globalThis.fetch(request);
    const path = new URL(request.url).pathname;
    if (path.startsWith('/v1/')) {
      const type = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
      const text = await response.clone().text();
      answers.push({ method, path, status: response.status, type, body: text === '' ? undefined : JSON.parse(text) });
    }
    return response;
  };

  return {
    get baseUrl() {
      if (baseUrl === undefined) throw new Error('useService(): used before beforeAll started the service');
      return baseUrl;
    },
    operatorKey: OPERATOR_KEY,
    fetch,
  };
}
