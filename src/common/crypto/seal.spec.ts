import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { seal, unseal } from './seal.js';

describe('sealed values', () => {
  const key = randomBytes(32);
  const store = '0193a1b2-0000-7000-8000-000000000001';

  it('opens what it sealed, and never holds the token in clear', () => {
    const sealed = seal(key, store, 'shpat_secret-token');
    expect(sealed.includes(Buffer.from('shpat_secret-token'))).toBe(false);
    expect(unseal(key, store, sealed)).toBe('shpat_secret-token');
  });

  it('uses a fresh IV each time', () => {
    expect(seal(key, store, 'same').equals(seal(key, store, 'same'))).toBe(false);
  });

  it('refuses another key, another store and any changed byte', () => {
    const sealed = seal(key, store, 'shpat_secret-token');
    expect(() => unseal(randomBytes(32), store, sealed)).toThrow();
    expect(() => unseal(key, '0193a1b2-0000-7000-8000-000000000002', sealed)).toThrow();
    for (const index of [0, 2, 14, sealed.length - 1]) {
      const changed = Buffer.from(sealed);
      changed[index] ^= 1;
      expect(() => unseal(key, store, changed)).toThrow();
    }
  });
});
