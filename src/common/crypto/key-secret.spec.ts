import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  digestSecret,
  digestsEqual,
  DISPLAY_PREFIX_LENGTH,
  displayPrefix,
  generateSecret,
  isWellFormedSecret,
  MERCHANT_KEY_PREFIX,
  OPERATOR_KEY_PREFIX,
  SECRET_LIKE,
} from './key-secret.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('generateSecret', () => {
  it('makes merchant secrets shaped sfk_<40 base62><6 base62 checksum> by default', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^sfk_[0-9A-Za-z]{46}$/);
    expect(isWellFormedSecret(secret)).toBe(true);
    expect(isWellFormedSecret(secret, MERCHANT_KEY_PREFIX)).toBe(true);
  });

  it('makes operator secrets with the sfo_ prefix', () => {
    const secret = generateSecret(OPERATOR_KEY_PREFIX);
    expect(secret).toMatch(/^sfo_[0-9A-Za-z]{46}$/);
    expect(isWellFormedSecret(secret, OPERATOR_KEY_PREFIX)).toBe(true);
    expect(isWellFormedSecret(secret, MERCHANT_KEY_PREFIX)).toBe(false);
  });

  it('never repeats a secret', () => {
    const secrets = Array.from({ length: 2000 }, () => generateSecret());
    expect(new Set(secrets).size).toBe(secrets.length);
    expect(secrets.every((s) => isWellFormedSecret(s, MERCHANT_KEY_PREFIX))).toBe(true);
  });

  it('uses the whole base62 alphabet in the random part', () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateSecret().slice(4, 44)).join(''));
    expect(seen.size).toBe(62);
  });

  it('produces secrets that secret scanners (SECRET_LIKE) find', () => {
    const secret = generateSecret();
    expect(`Authorization: Bearer ${secret}`.match(SECRET_LIKE)).toEqual([secret]);
    expect(generateSecret(OPERATOR_KEY_PREFIX).match(SECRET_LIKE)).toHaveLength(1);
  });
});

describe('isWellFormedSecret', () => {
  it('detects any one-character change in the body or the checksum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 49 }), fc.integer({ min: 1, max: 61 }), (position, shift) => {
        const secret = generateSecret();
        const original = BASE62.indexOf(secret[position]);
        const changed = secret.slice(0, position) + BASE62[(original + shift) % 62] + secret.slice(position + 1);
        expect(changed).not.toBe(secret);
        expect(isWellFormedSecret(changed)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('detects two swapped adjacent characters of the body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 42 }), (position) => {
        const secret = generateSecret();
        fc.pre(secret[position] !== secret[position + 1]);
        const swapped = secret.slice(0, position) + secret[position + 1] + secret[position] + secret.slice(position + 2);
        expect(isWellFormedSecret(swapped)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['empty', ''],
    ['only the prefix', 'sfk_'],
    ['one character short', generateSecret().slice(0, -1)],
    ['one character long', `${generateSecret()}A`],
    ['an unknown prefix', `sfx_${generateSecret().slice(4)}`],
    ['an upper-case prefix', `SFK_${generateSecret().slice(4)}`],
    ['a non-base62 character', `${generateSecret().slice(0, 10)}-${generateSecret().slice(11)}`],
    ['surrounding whitespace', ` ${generateSecret()} `],
  ])('refuses %s', (_, value) => {
    expect(isWellFormedSecret(value)).toBe(false);
  });

  it('refuses a secret of the other credential level when a prefix is required', () => {
    expect(isWellFormedSecret(generateSecret(OPERATOR_KEY_PREFIX), MERCHANT_KEY_PREFIX)).toBe(false);
    expect(isWellFormedSecret(generateSecret(MERCHANT_KEY_PREFIX), OPERATOR_KEY_PREFIX)).toBe(false);
  });
});

describe('displayPrefix', () => {
  it('keeps the first 8 characters: the credential prefix and 4 characters of the body', () => {
    const secret = generateSecret();
    expect(DISPLAY_PREFIX_LENGTH).toBe(8);
    expect(displayPrefix(secret)).toBe(secret.slice(0, 8));
    expect(displayPrefix(secret)).toMatch(/^sfk_[0-9A-Za-z]{4}$/);
  });

  it('is too short to be mistaken for a secret by the log scrubber', () => {
    expect(displayPrefix(generateSecret()).match(SECRET_LIKE)).toBeNull();
  });
});

describe('digestSecret', () => {
  it('is the lower-case hex SHA-256 of the secret', () => {
    expect(digestSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const secret = generateSecret();
    expect(digestSecret(secret)).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(digestSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not contain the secret', () => {
    const secret = generateSecret();
    expect(digestSecret(secret)).not.toContain(secret.slice(4, 12));
  });
});

describe('digestsEqual', () => {
  it('compares digests', () => {
    const secret = generateSecret();
    expect(digestsEqual(digestSecret(secret), digestSecret(secret))).toBe(true);
    expect(digestsEqual(digestSecret(secret), digestSecret(generateSecret()))).toBe(false);
  });

  it('answers false, without throwing, for digests of different lengths', () => {
    expect(digestsEqual(digestSecret('a'), digestSecret('a').slice(0, 62))).toBe(false);
    expect(digestsEqual(digestSecret('a'), '')).toBe(false);
  });
});
