/**
 * Fuzzing e2e (test/support/fuzz-walk.ts): odd headers on every API route, random forms on every console POST
 * route and odd addresses of every console page; and, over those, that every registered route was tried (the
 * headers property sends to every API route, the console properties to every console route).
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OPERATOR_KEY } from '../../support/app.js';
import { ConsoleClient, signUp } from '../../support/console-client.js';
import {
  authorizationArb,
  CONTENT_ENCODINGS,
  CONTENT_TYPES,
  edgeString,
  encodeBytes,
  ODD_ENCODINGS,
  ODD_HEADERS,
  queryArb,
  segmentArb,
} from '../../support/fuzz-arbitraries.js';
import { RUNS, runs, useFuzzWalk } from '../../support/fuzz-walk.js';

describe('fuzzing every route', () => {
  const walk = useFuzzWalk();
  const { t, routes, mine, theirs, tried, allIds, placeholder, credentialFor, isConsole, apiRoutes, deletesLast, wellFormed, exercise } =
    walk;

  // ——— headers ———

  it('answers odd Content-Type, Content-Encoding, Authorization and other headers on every route below 500, as problem details', async () => {
    for (const route of deletesLast(apiRoutes())) {
      const secret = credentialFor(route);
      const arb = fc.record({
        contentType: fc.constantFrom(...CONTENT_TYPES),
        contentEncoding: fc.constantFrom(...CONTENT_ENCODINGS),
        authorization: authorizationArb(secret, secret === OPERATOR_KEY ? mine.tenant.admin.secret : OPERATOR_KEY),
        odd: ODD_HEADERS,
        withBody: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(arb, async ({ contentType, contentEncoding, authorization, odd, withBody }) => {
          const req = wellFormed(route);
          const headers: Record<string, string | string[]> = { ...odd };
          if (contentType !== undefined) headers['Content-Type'] = contentType;
          if (contentEncoding !== undefined) headers['Content-Encoding'] = contentEncoding;
          if (authorization !== undefined) headers.Authorization = authorization;
          const body = req.body ?? (withBody ? Buffer.from('{}') : undefined);
          await exercise(route, { ...req, headers, body });
        }),
        runs(RUNS.headers),
      );
    }
  });

  // ——— the console ———

  it('answers random forms on every console POST route, signed in or not, below 500, refusals as HTML pages, storing nothing', async () => {
    const signedIn = await signUp(t, mine.tenant);
    const anonymous = new ConsoleClient(t);
    await anonymous.page('/console/login');
    walk.known = null;
    const posts = routes.filter((r) => isConsole(r) && (r.method === 'POST' || r.method === 'ALL'));
    expect(posts.length).toBeGreaterThanOrEqual(7);

    const field = fc.oneof(
      fc.constantFrom(
        '_csrf',
        'name',
        'scopes',
        'scopes[]',
        'email',
        'password',
        'admin_key',
        'shop',
        'store_id',
        'key_id',
        '__proto__',
        'constructor',
        'access_token',
      ),
      fc.string({ maxLength: 10 }).map(encodeBytes),
      fc.constantFrom(...ODD_ENCODINGS),
    );
    const value = fc.oneof(
      edgeString.filter((s) => s.length < 20_000).map(encodeBytes),
      fc.constantFrom(...ODD_ENCODINGS),
      fc.constantFrom(
        'events',
        'admin',
        'analytics',
        'fit',
        'catalog',
        mine.tenant.admin.secret,
        mine.spareKey.id,
        theirs.spareKey.id,
        'shop.example',
        'a@b.c',
      ),
    );
    const form = fc.array(fc.tuple(field, value), { maxLength: 8 });
    const arb = fc.record({
      route: fc.constantFrom(...posts),
      signedIn: fc.boolean(),
      csrf: fc.constantFrom('valid', 'none', 'garbage', 'other'),
      form,
      contentType: fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=latin1',
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        undefined,
      ),
      segment: fc.oneof(
        fc.constantFrom('', 'x', 'stores', 'login/extra', '..', '%2e%2e', '%ZZ'),
        fc.string({ maxLength: 10 }).map(encodeBytes),
      ),
    });
    await fc.assert(
      fc.asyncProperty(arb, async (c) => {
        const client = c.signedIn ? signedIn : anonymous;
        // a valid sign-out would end the session the other runs use
        if (c.signedIn && c.csrf === 'valid' && c.route.path === '/console/logout') return;
        const path =
          c.route.method === 'ALL'
            ? `/console/${c.segment}`
            : c.route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) =>
                name === 'key_id'
                  ? theirs.spareKey.id
                  : name === 'store_id'
                    ? c.csrf === 'other'
                      ? theirs.tenant.storeId
                      : mine.tenant.storeId
                    : 'x',
              );
        const token = { valid: client.csrf, none: undefined, garbage: 'garbage', other: (c.signedIn ? anonymous : signedIn).csrf }[c.csrf];
        const pairs = token === undefined ? c.form : [...c.form, ['_csrf', encodeBytes(token)] as [string, string]];
        const body = pairs.map(([k, v]) => `${k}=${v}`).join('&');
        const cookie = [
          ['sf_console', client.cookie('sf_console')],
          ['sf_csrf', client.cookie('sf_csrf')],
        ]
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${v}`)
          .join('; ');
        const headers: Record<string, string> = cookie ? { Cookie: cookie } : {};
        if (c.contentType !== undefined) headers['Content-Type'] = c.contentType;
        await exercise(c.route, { method: 'POST', path, headers, body: Buffer.from(body) });
      }),
      runs(RUNS.consoleForms * posts.length),
    );
  });

  it('answers console pages with odd query strings and path ids below 500, refusals as HTML pages', async () => {
    const client = await signUp(t, mine.tenant);
    walk.known = null;
    const pages = routes.filter((r) => isConsole(r) && r.method === 'GET');
    for (const route of pages) {
      const segments = route.params.map((name) =>
        segmentArb(placeholder(route.path, name, mine), [placeholder(route.path, name, theirs)]).map((v) => [name, v] as const),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(...segments),
          queryArb(['after', 'keys_after', 'from', 'to', 'code', 'state', 'shop'], allIds()),
          async (pairs, query) => {
            const values = Object.fromEntries(pairs);
            const path = `${route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => values[name])}${query}`;
            const cookie = `sf_console=${client.cookie('sf_console')}`;
            await exercise(route, { method: 'GET', path, headers: { Cookie: cookie } });
          },
        ),
        runs(RUNS.consolePages),
      );
    }
  });

  it('tried every registered route', () => {
    expect(routes.map((r) => r.route).filter((route) => !tried.has(route))).toEqual([]);
  });
});
