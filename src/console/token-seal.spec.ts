import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { openToken, sealToken } from './token-seal.js';

describe('sealed platform tokens', () => {
  const key = randomBytes(32);
  const store = '0193a1b2-0000-7000-8000-000000000001';

  it('opens what it sealed, and never holds the token in clear', () => {
    const sealed = sealToken(key, store, 'shpat_secret-token');
    expect(sealed.includes(Buffer.from('shpat_secret-token'))).toBe(false);
    expect(openToken(key, store, sealed)).toBe('shpat_secret-token');
  });

  it('uses a fresh IV each time', () => {
    expect(sealToken(key, store, 'same').equals(sealToken(key, store, 'same'))).toBe(false);
  });

  it('refuses another key, another store and any changed byte', () => {
    const sealed = sealToken(key, store, 'shpat_secret-token');
    expect(() => openToken(randomBytes(32), store, sealed)).toThrow();
    expect(() => openToken(key, '0193a1b2-0000-7000-8000-000000000002', sealed)).toThrow();
    for (const index of [0, 2, 14, sealed.length - 1]) {
      const changed = Buffer.from(sealed);
      changed[index] ^= 1;
      expect(() => openToken(key, store, changed)).toThrow();
    }
  });
});
