import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../crypto/key-secret.js';
import { redactUrl } from './redact.js';

/** The part of a secret that identifies it (everything after `sfk_`). */
const body = (secret: string) => secret.slice(4);

describe('redactUrl', () => {
  it('leaves a URL without credentials alone', () => {
    expect(redactUrl('/v1/stores?limit=2&starting_after=01a200fa-2ffc-76ba-af25-46c685a280e9')).toBe(
      '/v1/stores?limit=2&starting_after=01a200fa-2ffc-76ba-af25-46c685a280e9',
    );
    expect(redactUrl('/healthz')).toBe('/healthz');
  });

  it("blanks a returning shopper's id in the path that erases her, however it is encoded", () => {
    const store = '/v1/stores/01a200fa-2ffc-76ba-af25-46c685a280e9';
    expect(redactUrl(`${store}/shoppers/cust-8812`)).toBe(`${store}/shoppers/[REDACTED]`);
    expect(redactUrl(`${store}/shoppers/jane%40example.com?x=1`)).toBe(`${store}/shoppers/[REDACTED]?x=1`);
    expect(redactUrl(`${store}/shoppers/a%2Fb`)).toBe(`${store}/shoppers/[REDACTED]`);
  });

  describe("a returning shopper's id under any spelling of the erasure route", () => {
    const store = '/v1/stores/01a200fa-2ffc-76ba-af25-46c685a280e9';
    const ref = 'cust-8812';

    it.each([
      'Shoppers',
      'SHOPPERS',
      'shoppers;',
      'shoppers;jsessionid=0a1b',
      'shoppers%3B',
      'shoppers%3Fv=1',
      'shoppers%23',
      'shoppers.',
      'shoppers..',
      'shoppers%20',
      '%73hoppers',
      '%53%48%4f%50%50%45%52%53',
      '%2573hoppers',
      '%C5%BFhoppers',
      '%EF%BD%93%EF%BD%88%EF%BD%8F%EF%BD%90%EF%BD%90%EF%BD%85%EF%BD%92%EF%BD%93',
      'shop%E2%80%8Bpers',
    ])('blanks what follows %s', (spelling) => {
      for (const [before, after] of [
        ['/', '/'],
        ['//', '//'],
        ['/', '%2F'],
        ['%2F', '%2f'],
        ['/', '%252F'],
        ['/', '\\'],
        ['/./', '/./'],
      ]) {
        const logged = redactUrl(`${store}${before}${spelling}${after}${ref}?x=1`) as string;
        expect(logged).not.toContain(ref);
        expect(logged).toMatch(/\/\[REDACTED\]\?x=1$/);
        expect(logged.startsWith(store)).toBe(true);
      }
    });

    it('blanks the id written in the matrix parameters of the segment itself', () => {
      expect(redactUrl(`${store}/shoppers;${ref}`)).toBe(`${store}/shoppers/[REDACTED]`);
    });

    it('leaves every other path as it was logged: once decoded, a lone shoppers segment included', () => {
      expect(redactUrl(`${store}/sessions/a%2520b`)).toBe(`${store}/sessions/a%20b`);
      expect(redactUrl(`${store}/shoppers`)).toBe(`${store}/shoppers`);
      expect(redactUrl(`${store}/shopper-fit/${ref}`)).toBe(`${store}/shopper-fit/${ref}`);
    });

    it('never logs the id, whatever spelling of shoppers and whatever id', () => {
      const encode = (c: string, upper: boolean) =>
        [...Buffer.from(c, 'utf8')]
          .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
          .join('')
          [upper ? 'toUpperCase' : 'toLowerCase']();
      const fullWidth = (c: string) => String.fromCodePoint(c.toLowerCase().codePointAt(0)! - 0x61 + 0xff41);
      // one character of `shoppers`, written one of several ways
      const character = (c: string) =>
        fc
          .tuple(
            fc.boolean(),
            fc.constantFrom('plain', 'escaped', 'ESCAPED', 'escaped twice', 'long s', 'full width', 'full width escaped'),
          )
          .map(([upper, how]) => {
            const letter = upper ? c.toUpperCase() : c;
            if (how === 'escaped' || how === 'ESCAPED') return encode(letter, how === 'ESCAPED');
            if (how === 'escaped twice') return encode(letter, false).replace('%', '%25');
            if (how === 'long s' && c === 's') return 'ſ';
            if (how === 'full width') return fullWidth(c);
            if (how === 'full width escaped') return encode(fullWidth(c), true);
            return letter;
          });
      const spelling = fc
        .tuple(
          fc.tuple(...[...'shoppers'].map(character)).map((letters) => letters.join('')),
          fc.constantFrom('', '.', '..', ';', ';v=1', '%3B', '%3F', '%23', '%20', '.%20', '%E2%80%8B', '%00'),
        )
        .map(([name, suffix]) => `${name}${suffix}`);
      const separator = fc.constantFrom('/', '//', '///', '%2F', '%2f', '%252F', '\\', '%5C', '/./');
      const id = fc
        .tuple(fc.constantFrom('cust-', 'jane@', 'ref_'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 16 }))
        .map(([prefix, rest]) => `${prefix}${rest}`);
      fc.assert(
        fc.property(separator, spelling, separator, id, fc.constantFrom('', '/', '/more', '?limit=1'), (before, name, after, ref, tail) => {
          const logged = redactUrl(`${store}${before}${name}${after}${encodeURIComponent(ref)}${tail}`) as string;
          expect(logged).not.toContain(ref);
          expect(logged).not.toContain(encodeURIComponent(ref));
          expect(logged).toContain('[REDACTED]');
          expect(logged.startsWith(store)).toBe(true);
        }),
        { numRuns: 2000 },
      );
    });
  });

  it('passes undefined through', () => {
    expect(redactUrl(undefined)).toBeUndefined();
  });

  it.each(['access_token', 'api_key', 'apikey', 'key', 'token', 'secret'])('blanks the value of %s', (name) => {
    const redacted = redactUrl(`/v1/stores?${name}=hunter2`);
    expect(redacted).toBe(`/v1/stores?${name}=[REDACTED]`);
  });

  it('blanks credential parameters wherever they sit in the query, and keeps the others', () => {
    expect(redactUrl('/v1/stores?limit=2&access_token=hunter2&starting_after=x')).toBe(
      '/v1/stores?limit=2&access_token=[REDACTED]&starting_after=x',
    );
    expect(redactUrl('/v1/stores?api_key=hunter2&token=swordfish#frag')).toBe('/v1/stores?api_key=[REDACTED]&token=[REDACTED]#frag');
  });

  it("blanks the platform callback's code, state and signature, and keeps the shop", () => {
    expect(redactUrl('/console/platform/callback?code=abc123&hmac=ff00&shop=a.myshopify.com&state=xyz&timestamp=1')).toBe(
      '/console/platform/callback?code=[REDACTED]&hmac=[REDACTED]&shop=a.myshopify.com&state=[REDACTED]&timestamp=1',
    );
  });

  it('matches credential parameter names whatever their case', () => {
    expect(redactUrl('/v1/stores?ACCESS_TOKEN=hunter2&Api_Key=swordfish')).toBe('/v1/stores?ACCESS_TOKEN=[REDACTED]&Api_Key=[REDACTED]');
  });

  it('does not blank parameters whose names merely contain a credential word', () => {
    expect(redactUrl('/v1/x?monkey=1&keyboard=2&tokens=3')).toBe('/v1/x?monkey=1&keyboard=2&tokens=3');
  });

  it('blanks the whole value of a credential parameter, even when it is a secret', () => {
    const secret = generateSecret();
    const redacted = redactUrl(`/v1/stores?access_token=${secret}&limit=1`) as string;
    expect(redacted).toBe('/v1/stores?access_token=[REDACTED]&limit=1');
  });

  it('blanks a secret under any parameter name', () => {
    const secret = generateSecret();
    const redacted = redactUrl(`/v1/stores?limit=1&q=${secret}`) as string;
    expect(redacted).not.toContain(body(secret));
    expect(redacted).toBe('/v1/stores?limit=1&q=[REDACTED]');
  });

  it('blanks a secret in the path, in a parameter name and in the fragment', () => {
    const secret = generateSecret();
    for (const url of [`/v1/api-keys/${secret}`, `/v1/stores?${secret}`, `/v1/stores?${secret}=1`, `/v1/stores#${secret}`]) {
      expect(redactUrl(url)).not.toContain(body(secret));
      expect(redactUrl(url)).toContain('[REDACTED]');
    }
  });

  it('blanks several secrets in one URL, operator secrets too', () => {
    const a = generateSecret();
    const b = generateSecret(OPERATOR_KEY_PREFIX);
    const redacted = redactUrl(`/v1/x/${a}?a=${b}&b=${a}`) as string;
    expect(redacted).not.toContain(body(a));
    expect(redacted).not.toContain(body(b));
  });

  it('blanks a secret whose characters are percent-encoded in the query string', () => {
    // The guard decodes the query before refusing it, so `sfk%5F…` is as much a secret in the URL as `sfk_…`.
    const secret = generateSecret();
    for (const url of [
      `/v1/stores?q=sfk%5F${body(secret)}`,
      `/v1/stores?q=sfk%5f${body(secret)}`,
      `/v1/stores?q=%73%66%6B_${body(secret)}`,
    ]) {
      expect(redactUrl(url)).not.toContain(body(secret));
    }
  });

  it('blanks a secret written with percent-escapes beside an escape that does not decode', () => {
    // what a reader of the log would see once the ASCII escapes are read
    const readable = (text: string) =>
      text.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    const escape = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }),
        fc.constantFrom('%E0', '%', '%ZZ', '%C3%28', '%ED%A0%80'),
        fc.constantFrom('path-before', 'path-after', 'fragment'),
        (escaped, broken, where) => {
          const secret = generateSecret();
          const written = [...secret].map((c, i) => (escaped[i % escaped.length] ? escape(c) : c)).join('');
          const url =
            where === 'path-before'
              ? `/v1/stores/${broken}/${written}`
              : where === 'path-after'
                ? `/v1/stores/${written}/${broken}`
                : `/v1/stores#${broken}${written}`;
          expect(readable(redactUrl(url) as string)).not.toContain(body(secret));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never lets a secret through, wherever it is placed in a URL', () => {
    const piece = fc.stringMatching(/^[A-Za-z0-9_.~-]{0,12}$/);
    fc.assert(
      fc.property(piece, piece, piece, fc.constantFrom('/', '?', '&', '=', '#', '/v1/'), (a, b, c, separator) => {
        const secret = generateSecret();
        const url = `/v1/${a}?${b}=${c}${separator}${secret}`;
        expect(redactUrl(url)).not.toContain(body(secret));
      }),
      { numRuns: 300 },
    );
  });
});
