/**
 * Every test file, whatever it tests: no API key secret appears in any response but the one that created it (and
 * replays of that answer to the same `Idempotency-Key`, marked `Idempotent-Replayed: true`).
 * Each supertest response is recorded; after the file's tests, a secret seen in a later response (or in an answer
 * other than a 201 to a POST), or the SHA-256 digest of any secret seen, fails the file. Loaded by jest.config.js.
 */
import { createHash } from 'node:crypto';
import { afterAll, expect } from '@jest/globals';
import { Test } from 'supertest';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly text: string;
  readonly replayed: boolean;
}

const seen: Seen[] = [];
const end = Test.prototype.end;
Test.prototype.end = function (this: Test & { method: string; url: string }, callback?: (error: unknown, response: unknown) => void) {
  return end.call(this, (error: unknown, response: { status: number; text?: string; headers: Record<string, unknown> } | undefined) => {
    if (response) {
      seen.push({
        method: this.method,
        url: this.url,
        status: response.status,
        text: `${JSON.stringify(response.headers)}\n${response.text ?? ''}`,
        replayed: response.headers['idempotent-replayed'] === 'true',
      });
    }
    callback?.(error, response);
  });
} as typeof end;

const SECRET = /sf[ko]_[0-9A-Za-z]{46}/g;

afterAll(() => {
  const created = new Set<string>();
  const leaks: Array<{ secret: string; request: string; status: number }> = [];
  for (const response of seen) {
    for (const secret of response.text.match(SECRET) ?? []) {
      if (response.method === 'POST' && response.status === 201 && !created.has(secret)) {
        created.add(secret);
        continue;
      }
      if (response.method === 'POST' && response.status === 201 && response.replayed) continue;
      leaks.push({
        secret: `${secret.slice(0, 8)}…`,
        request: `${response.method} ${new URL(response.url).pathname}`,
        status: response.status,
      });
    }
  }
  const digests = new Map([...created].map((secret) => [createHash('sha256').update(secret).digest('hex'), secret]));
  for (const response of seen) {
    for (const hex of response.text.match(/[0-9a-f]{64}/g) ?? []) {
      const secret = digests.get(hex);
      if (secret)
        leaks.push({
          secret: `digest of ${secret.slice(0, 8)}…`,
          request: `${response.method} ${new URL(response.url).pathname}`,
          status: response.status,
        });
    }
  }
  expect(leaks).toEqual([]);
});
