import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { generateSecret, OPERATOR_KEY_PREFIX } from '../../auth/key-secret.js';
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
