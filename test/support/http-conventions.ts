import { afterAll, expect } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, type TestApp } from './app.js';
import { expectProblem } from './fixtures.js';

/**
 * Every problem `type` the test file has seen through `problem()` (each test file loads its own copy of this module).
 * The file test/api/service/http-conventions-requests.e2e-spec.ts ends with a test that checks each one resolves to a
 * page; the other http-conventions files check the same after their tests (`checkProblemPagesAfterAll`).
 */
export const seenTypes = new Set<string>();

export function problem(response: Response, status: number, code: string): void {
  expectProblem(response, status, code);
  seenTypes.add(response.body.type);
}

/** A problem answer with `status` and one of `codes` (where the contract leaves the exact code open). */
export function problemOneOf(response: Response, status: number, codes: string[]): void {
  expect(response.status).toBe(status);
  expect(codes).toContain(response.body.code);
  problem(response, status, response.body.code);
}

export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * After the enclosing block's tests: every problem type `problem()` saw in this file is a `/problems/…` page that
 * exists — the check the last test of http-conventions-requests.e2e-spec.ts makes there. Call it before `useApp()`
 * in the same block (afterAll hooks run in the order they are declared), so that it runs while the app is up.
 */
export function checkProblemPagesAfterAll(app: () => TestApp): void {
  afterAll(async () => {
    for (const type of seenTypes) {
      expect(type).toMatch(/^\/problems\/[a-z_]+$/);
      const response = await app().http().get(type);
      expect({ type, status: response.status }).toEqual({ type, status: 200 });
      expect(response.headers['content-type']).toMatch(/^text\/html/);
    }
  });
}

/**
 * The HTTP conventions tests' requests on the app `t`: `postRaw` POSTs `text` verbatim, with the given Content-Type
 * (none when null); `storeNames` lists the names of the merchant's stores. Call it in a `describe` block; use what it
 * returns in tests.
 */
export function httpConventionRequests(t: TestApp) {
  /** POSTs `text` verbatim, with the given Content-Type (none when null). */
  const postRaw = (path: string, secret: string, text: string | Buffer, contentType: string | null = 'application/json') => {
    const req = t.http().post(path).set(bearer(secret));
    if (contentType !== null) req.set('Content-Type', contentType);
    // Sent byte for byte: no serializer may turn the text (or a Buffer) into other JSON.
    return req.serialize((data: unknown) => data as string).send(text as string);
  };

  const storeNames = async (secret: string): Promise<string[]> => {
    const response = await t.http().get('/v1/stores?limit=100').set(bearer(secret));
    expect(response.status).toBe(200);
    return (response.body.data as { name: string }[]).map((s) => s.name);
  };

  return { postRaw, storeNames };
}
