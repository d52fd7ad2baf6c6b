import { describe, expect, it } from '@jest/globals';
import { validate, version } from 'uuid';
import { isId, newId } from './ids.js';

describe('newId', () => {
  it('makes UUIDv7s, each after the last, many to a millisecond and across refills of the random pool', () => {
    const ids = Array.from({ length: 5_000 }, newId);
    for (const id of ids) {
      expect(validate(id) && version(id) === 7 && isId(id)).toBe(true);
    }
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1])).toBe(true);
    expect(new Set(ids.map((id) => id.slice(-12))).size).toBeGreaterThan(4_990);
  });

  it('carries the millisecond it was made in', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    const msecs = Number.parseInt(id.replace('-', '').slice(0, 12), 16);
    expect(msecs).toBeGreaterThanOrEqual(before);
    expect(msecs).toBeLessThanOrEqual(after + 1);
  });
});
