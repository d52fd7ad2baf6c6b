/**
 * Every test file, whatever it tests: each `/v1` answer a test receives must be one the OpenAPI document allows — a
 * documented status of the operation, with a body valid against its schema and, for a problem, a documented code —
 * and each request body the service accepted must be one the document allows (contract-violations.ts). Answers are recorded as they arrive; after the file's tests they are checked against the
 * document the service serves (contract-document.ts). Loaded by jest.config.js; `CONTRACT_AUDIT=0` turns it off
 * while changing the document.
 */
import { afterAll, expect } from '@jest/globals';
import { Test } from 'supertest';
import type { Answer, ContractDocument } from './contract-violations.js';

const answers: Answer[] = [];
const auditing = process.env.CONTRACT_AUDIT !== '0';
const end = Test.prototype.end;
Test.prototype.end = function (
  this: Test & { method: string; url: string; _data?: unknown },
  callback?: (error: unknown, response: unknown) => void,
) {
  const sent = this._data;
  return end.call(this, (error: unknown, response: { status: number; body?: unknown; headers: Record<string, string> } | undefined) => {
    const path = new URL(this.url).pathname;
    if (auditing && response && path.startsWith('/v1/')) {
      const type = String(response.headers['content-type'] ?? '').split(';')[0];
      // Only accepted bodies are checked, so only they are read: parsing every body sent here, on the service's own
      // event loop, would stall it in the tests that measure stalls.
      const request = response.status < 300 ? jsonOf(sent) : undefined;
      answers.push({ method: this.method.toLowerCase(), path, status: response.status, type, body: response.body, request });
    }
    callback?.(error, response);
  });
} as typeof end;

/** The JSON body a test sent (an object, or JSON text or bytes), else `undefined`. */
function jsonOf(data: unknown): unknown {
  if (Buffer.isBuffer(data)) return jsonOf(data.toString('utf8'));
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

afterAll(async () => {
  if (!auditing || answers.length === 0) return;
  // Loaded here, not above: the document needs the whole service, which a file that sent no /v1 request (a unit
  // test) should not pay for.
  const [{ servedDocument }, { contractViolations }] = await Promise.all([
    import('./contract-document.js'),
    import('./contract-violations.js'),
  ]);
  expect(contractViolations((await servedDocument()) as ContractDocument, answers)).toEqual([]);
});
