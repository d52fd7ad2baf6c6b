import fc from 'fast-check';
import { Agent, request as httpRequest } from 'node:http';

/**
 * Generators of hostile input for the HTTP surface: JSON values that are wrong in every way a client can get them
 * wrong, mutations of valid bodies, raw bodies that are not JSON at all, query strings, path segments and headers.
 * Everything is sent byte for byte as generated (no client-side normalisation), through `sendRaw`.
 */

// ———————————————————————————————————————— raw HTTP ————————————————————————————————————————

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
}

export interface RawRequest {
  method: string;
  /** Sent as is: already encoded (or deliberately not). */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/**
 * One request exactly as given: no normalisation of the path, no header or body rewriting.
 *
 * Sent once more, on a new connection, when a kept-alive connection turns out to be closed by the server before it
 * read a byte of the request (Node's documented remedy: `reusedSocket` and `ECONNRESET`). Client and server share one
 * event loop here: building a large generated body can block it for longer than the server's keep-alive timeout, whose
 * timer then fires in the very tick the client reuses the connection.
 */
export async function sendRaw(port: number, req: RawRequest): Promise<RawAnswer> {
  try {
    return await sendOnce(port, req, agent);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    return sendOnce(port, req, agent);
  }
}

/** A reused connection the server had already closed: nothing of the request was read. */
class StaleConnection extends Error {}

function sendOnce(port: number, req: RawRequest, through: Agent): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = String(req.body.length);
    const outgoing = httpRequest({ host: '127.0.0.1', port, agent: through, method: req.method, path: req.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      reject(outgoing.reusedSocket && error.code === 'ECONNRESET' ? new StaleConnection(error.message) : error),
    );
    outgoing.end(req.body);
  });
}

export const closeRawAgent = (): void => agent.destroy();

/** Percent-encodes every byte of the UTF-8 form outside unreserved characters (lone surrogates become U+FFFD's bytes). */
export function encodeBytes(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// ———————————————————————————————————————— JSON values ————————————————————————————————————————

/** Marks a string as a raw JSON token, written into the body text unquoted (numbers JSON.stringify cannot write). */
const RAW = '\u0001raw:';
export const rawToken = (token: string): string => `${RAW}${token}`;

/** JSON text of `value`, with raw tokens written as is. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001raw:([^"]*)"/g, '$1');
}

export const EDGE_STRINGS: readonly string[] = [
  '',
  ' ',
  '   padded   ',
  '\u0000',
  'nul\u0000inside',
  '\ud800',
  'lone high \ud83d',
  '\udfff lone low',
  '\u202eRTL override',
  '\u200f\u200e\u061c',
  '\u200b\u200c\u200d',
  '\ufeffBOM',
  '\uffff\ufffe',
  '😀'.repeat(60),
  'e\u0301\u0301\u0301',
  'ｆｕｌｌｗｉｄｔｈ',
  'İıß',
  '\r\n\t\v\f',
  '\u2028\u2029',
  '%00',
  '%ZZ',
  "' OR '1'='1",
  '"; DROP TABLE events; --',
  '<script>alert(1)</script>',
  '../../../etc/passwd',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'true',
  '1e999',
  'NaN',
  '-1',
  '0x1F',
  '2025-13-45T25:61:61Z',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '1970-01-01T00:00:00.000Z',
  '2024-02-30T00:00:00.000Z',
  '2024-06-01T12:00:00.000+25:00',
  'sfk_',
];

export const EDGE_NUMBERS: readonly number[] = [
  0,
  -0,
  -1,
  1,
  0.5,
  1e-7,
  5e-324,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e308,
  -1e308,
  Number.MAX_VALUE,
];

/** Numbers JSON can spell but JavaScript cannot hold, or spells oddly. */
export const RAW_NUMBERS: readonly string[] = [
  '1e999',
  '-1e999',
  '1E400',
  '-0.0',
  '1.0',
  '0.00000000000000000000000000001',
  '123456789012345678901234567890',
];

/** Strings of lengths around the usual limits, and far past them. */
export const longString = fc
  .tuple(fc.constantFrom(99, 100, 101, 199, 200, 201, 255, 256, 500, 501, 1000, 5000, 20_000, 70_000), fc.constantFrom('x', 'é', '😀', ' '))
  .map(([n, unit]) => unit.repeat(n));

export const edgeString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: longString },
);

export const edgeNumber: fc.Arbitrary<number | string> = fc.oneof(
  fc.constantFrom(...EDGE_NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(...RAW_NUMBERS).map(rawToken),
);

/** Nested arrays or objects, `depth` levels deep (the limit is 32). */
export function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

export const deepValue = fc
  .tuple(fc.constantFrom(30, 31, 32, 33, 64, 500, 1000), fc.constantFrom('array' as const, 'object' as const))
  .map(([depth, kind]) => nested(depth, kind));

/** Anything a field could wrongly be, given `ids` (valid and foreign ids to use as values). */
export function hostileValue(ids: readonly string[]): fc.Arbitrary<unknown> {
  const id = fc.constantFrom(...ids);
  return fc.oneof(
    { weight: 4, arbitrary: edgeString },
    { weight: 3, arbitrary: edgeNumber },
    { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], [[]], { '': '' }) },
    { weight: 2, arbitrary: id },
    { weight: 1, arbitrary: id.map((value) => value.toUpperCase()) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: deepValue },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.array(edgeString, { maxLength: 5 }) },
  );
}

export const EXTRA_KEYS: readonly string[] = [
  '__proto__',
  'constructor',
  'prototype',
  'access_token',
  'id',
  'merchant_id',
  'store_id',
  'created_at',
  'archived_at',
  'secret',
  '',
  ' ',
  'nul\u0000key',
  '\ud800',
  '😀',
  'NAME',
  'a.b',
  '$where',
];

// ———————————————————————————————————————— mutations of a valid body ————————————————————————————————————————

type Path = (string | number)[];

/** A node's children, with their keys. */
const childrenOf = (value: unknown): [string | number, unknown][] =>
  Array.isArray(value) ? value.map((child, i) => [i, child]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];

/** Nodes of `value`, itself included. */
function countNodes(value: unknown): number {
  let count = 0;
  const pending = [value];
  while (pending.length) {
    count++;
    for (const [, child] of childrenOf(pending.pop())) pending.push(child);
  }
  return count;
}

/**
 * The path to the `index`th node of `value` in pre-order (the root is 0), in one walk that builds no other path: a
 * body of a thousand repeats of a value nested a thousand deep has millions of nodes, and listing their paths took
 * seconds. Each frame of the walk is one level below the root: the children left to visit there.
 */
function pathAt(value: unknown, index: number): Path {
  const path: Path = [];
  const frames = [{ children: childrenOf(value), next: 0 }];
  for (let seen = 0; seen < index;) {
    const frame = frames[frames.length - 1];
    if (frame.next === frame.children.length) {
      frames.pop();
      path.pop();
      continue;
    }
    const [key, child] = frame.children[frame.next++];
    path.push(key);
    if (++seen < index) frames.push({ children: childrenOf(child), next: 0 });
  }
  return path;
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

function setAt(root: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  Object.defineProperty(parent, path[path.length - 1], { value: next, enumerable: true, writable: true, configurable: true });
  return root;
}

export type MutationOp = 'replace' | 'delete' | 'add_field' | 'wrap_in_array' | 'repeat_in_array' | 'to_string' | 'to_object';

export interface Mutation {
  op: MutationOp;
  /** Which node (taken modulo the number of nodes). */
  at: number;
  key: string;
  value: unknown;
  times: number;
}

export function mutationArb(ids: readonly string[]): fc.Arbitrary<Mutation> {
  return fc.record({
    op: fc.constantFrom<MutationOp>(
      'replace',
      'replace',
      'replace',
      'delete',
      'add_field',
      'wrap_in_array',
      'repeat_in_array',
      'to_string',
      'to_object',
    ),
    at: fc.nat(),
    key: fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 12 })),
    value: hostileValue(ids),
    times: fc.constantFrom(2, 50, 501, 2000),
  });
}

/** About twice the largest body the service takes (1 MiB, for a batch). */
const REPEAT_MAX_CHARS = 2 * 1024 * 1024;

/** `seed` (not changed) with the mutations applied one after another. */
export function applyMutations(seed: unknown, mutations: readonly Mutation[]): unknown {
  let body: unknown = JSON.parse(JSON.stringify(seed));
  for (const mutation of mutations) {
    // generated values may be shared instances (constantFrom): never change them in place
    const m = { ...mutation, value: mutation.value === undefined ? undefined : JSON.parse(JSON.stringify(mutation.value)) };
    const path = pathAt(body, m.at % countNodes(body));
    const node = getAt(body, path);
    switch (m.op) {
      case 'replace':
        body = setAt(body, path, m.value);
        break;
      case 'delete':
        if (path.length === 0) body = undefined;
        else {
          const parent = getAt(body, path.slice(0, -1));
          if (Array.isArray(parent)) parent.splice(path[path.length - 1] as number, 1);
          else delete (parent as Record<string, unknown>)[path[path.length - 1]];
        }
        break;
      case 'add_field':
        if (node !== null && typeof node === 'object' && !Array.isArray(node)) setAt(node, [m.key], m.value);
        else body = setAt(body, path, { [m.key]: m.value });
        break;
      case 'wrap_in_array':
        body = setAt(body, path, [node]);
        break;
      case 'repeat_in_array': {
        // Repeats compound (2,000 of 2,000 of 2,000 is eight billion nodes): each stops near REPEAT_MAX_CHARS, past
        // every body limit, so a long body is still tried and the generator never runs out of memory.
        const text = node === undefined ? 'null' : JSON.stringify(node);
        const times = Math.max(1, Math.min(m.times, Math.floor(REPEAT_MAX_CHARS / (text.length + 1))));
        body = setAt(
          body,
          path,
          Array.from({ length: times }, () => JSON.parse(text)),
        );
        break;
      }
      case 'to_string':
        body = setAt(body, path, node === undefined ? 'undefined' : JSON.stringify(node));
        break;
      case 'to_object':
        body = setAt(body, path, { value: node });
        break;
    }
    if (body === undefined) break;
  }
  return body;
}

/** Bodies that are not a JSON object at all, or not JSON, or not UTF-8, for a route whose valid body is `seed`. */
export function rawBodyArb(seed: unknown): fc.Arbitrary<Buffer> {
  const text = toJsonText(seed);
  const fixed = [
    '',
    ' ',
    'null',
    'true',
    '1',
    '"a string"',
    '[]',
    '[{}]',
    '{',
    '}',
    '{"a":}',
    '{"a":1,}',
    "{'a':1}",
    '{"a":1}{"b":2}',
    '\ufeff{}',
    '{"a":1e999}',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    'NaN',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"a":"\\uZZZZ"}',
    '['.repeat(20_000),
    '{"a":'.repeat(5_000),
    `${'['.repeat(2_000)}${']'.repeat(2_000)}`,
    `${text}${text}`,
    `[${text}]`,
    `{"body":${text}}`,
    text.replace(/"/g, "'"),
    text.replace(/:/g, '='),
  ].map((s) => Buffer.from(s, 'utf8'));
  const bytes = [
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"a":"\xff\xfe"}
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]), // overlong "/"
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), // an encoded surrogate
    Buffer.from(text, 'utf16le'),
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
  ];
  return fc.oneof(
    fc.constantFrom(...fixed, ...bytes),
    fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => Buffer.from(text.slice(0, cut))),
    fc
      .tuple(fc.nat({ max: text.length }), fc.constantFrom('"', '{', '}', ',', ':', '\\', '\u0000', ']', 'x'))
      .map(([at, c]) => Buffer.from(text.slice(0, at) + c + text.slice(at))),
    fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  );
}

// ———————————————————————————————————————— query strings ————————————————————————————————————————

export const ODD_ENCODINGS: readonly string[] = [
  '%ZZ',
  '%',
  '%2',
  '%00',
  '%E0%A4%A',
  '%C0%AF',
  '%FF',
  '%ED%A0%80',
  '%2F',
  '%2e%2e',
  '+',
  '%2B',
  '%26',
  '%3D',
  '%23',
  '%0D%0A',
  '%F0%9F%98%80',
  '%u0041',
];

export const MAX_QUERY_LENGTH = 8000;

/** One query string (with its leading `?`, or empty), given names the route knows and ids to use as values. */
export function queryArb(knownNames: readonly string[], ids: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...knownNames, 'limit', 'starting_after') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'access_token',
        'api_key',
        'key',
        '__proto__',
        'constructor',
        'limit[]',
        'limit[a]',
        'a[b][c]',
        '',
        '%20',
        'LIMIT',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encodeBytes) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_ENCODINGS) },
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: edgeString.filter((s) => s.length < 3000).map(encodeBytes) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_ENCODINGS) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('0', '-1', '1', '100', '101', '1000000', '1.5', '1e3', '0x10', '%205', '5%20', '', 'null', 'true'),
    },
    { weight: 2, arbitrary: fc.constantFrom(...ids).chain((id) => fc.constantFrom(id, id.toUpperCase(), id.slice(0, -1), `${id}x`)) },
    { weight: 1, arbitrary: fc.constantFrom(1000, 4000).map((n) => 'a'.repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom('2024-01-01', '2024-01-01T00:00:00Z', '1900-01-01', '9999-12-31', '2024-02-30', '2024-W01') },
  );
  const pair = fc.tuple(name, value, fc.boolean()).map(([n, v, withEquals]) => (withEquals ? `${n}=${v}` : n));
  return fc.tuple(fc.array(pair, { maxLength: 6 }), fc.nat({ max: 3 }), fc.constantFrom('&', '&&', ';')).map(([pairs, repeat, joiner]) => {
    const all = pairs.length ? [...pairs, ...Array.from({ length: repeat }, () => pairs[0])] : [];
    // kept under Node's 16 KiB limit for the request line and headers (what is over it is a test of its own)
    return all.length ? `?${all.join(joiner)}`.slice(0, MAX_QUERY_LENGTH) : '';
  });
}

// ———————————————————————————————————————— numbers in the URL ————————————————————————————————————————

/**
 * Numbers at the edges of a 32-bit integer column, of exact doubles and of the number parser, and spellings a lenient
 * parser takes as numbers: for every query parameter and every path segment. Already URL-encoded.
 */
export const NUMERIC_EXTREMES: readonly string[] = [
  '2147483648', // 2^31
  '2147483647',
  '9007199254740992', // 2^53
  '9007199254740993', // 2^53 + 1, which no double holds
  '1e308',
  '1e999',
  '-0',
  '-1',
  '0',
  '0.5',
  '1e3',
  '%201',
  '0x10',
  'NaN',
  'Infinity',
];

// ———————————————————————————————————————— path segments ————————————————————————————————————————

export const ODD_SEGMENTS: readonly string[] = [
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '%2F',
  'a%2Fb',
  '..%2F..%2Fv1%2Fmerchant',
  '%5C',
  '%00',
  '%ZZ',
  '%',
  '%ED%A0%80',
  '%C0%AF',
  '%F0%9F%98%80',
  'null',
  'undefined',
  '0',
  '-1',
  '1e999',
  'me',
  '*',
  '%2A',
  '%20',
  'x'.repeat(2000),
  'ABC',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
];

/** A value for one path placeholder: the right id, another tenant's, one in odd spellings, or not an id at all. */
export function segmentArb(own: string, foreign: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(own) },
    { weight: 2, arbitrary: fc.constant(own.toUpperCase()) },
    { weight: 2, arbitrary: fc.constantFrom(...foreign) },
    { weight: 1, arbitrary: fc.constantFrom(...foreign).map((id) => id.toUpperCase()) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        own.replace(/-/g, ''),
        `{${own}}`,
        `${own}%20`,
        `%20${own}`,
        `${own}.json`,
        `${own}%00`,
        `${own}%2F..`,
        own.slice(0, -1),
        encodeBytes(own).replace(/-/g, '%2D'),
      ),
    },
    { weight: 1, arbitrary: fc.uuid().map(String) },
    { weight: 4, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(encodeBytes) },
  );
}

// ———————————————————————————————————————— headers ————————————————————————————————————————

export const CONTENT_TYPES: readonly (string | undefined)[] = [
  undefined,
  '',
  'application/json',
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'application/json;charset="UTF-8"',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=',
  'application/json; charset=utf-8; charset=latin1',
  'application/json, text/plain',
  'application/json garbage',
  'application/merge-patch+json',
  'application/problem+json',
  'application/vnd.api+json',
  'application/*',
  '*/*',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/octet-stream',
  'json',
  ';;;',
  'application/json\u00ff',
];

export const CONTENT_ENCODINGS: readonly (string | undefined)[] = [
  undefined,
  'identity',
  'gzip',
  'deflate',
  'br',
  'x-unknown',
  'gzip, gzip',
];

/** Authorization values around a valid `secret` (and `operator`, a key that is valid but the wrong level). */
export function authorizationArb(secret: string, operator: string): fc.Arbitrary<string | string[] | undefined> {
  return fc.constantFrom<string | string[] | undefined>(
    undefined,
    '',
    'Bearer',
    'Bearer ',
    `Bearer  ${secret}`,
    `bearer ${secret}`,
    `BEARER ${secret}`,
    `Bearer ${secret} `,
    `Bearer ${secret} extra`,
    `Bearer ${secret},Bearer ${secret}`,
    `Basic ${Buffer.from(`${secret}:`).toString('base64')}`,
    `Token ${secret}`,
    secret,
    `Bearer ${secret.slice(0, -1)}`,
    `Bearer ${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`,
    `Bearer ${secret.toUpperCase()}`,
    `Bearer ${secret}${'x'.repeat(4000)}`,
    `Bearer ${operator}`,
    'Bearer sfk_',
    'Bearer sfk_\u00ff\u00fe',
    'Bearer %00',
    [`Bearer ${secret}`, 'Bearer sfk_not-a-key'],
    ['Bearer sfk_not-a-key', `Bearer ${secret}`],
  );
}

export const ODD_HEADERS: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'Request-Id': fc.constantFrom('', ' ', 'x'.repeat(129), 'x'.repeat(128), 'a b', 'id\u00ff', '../..', '<script>', 'ok-id_1.2:3'),
    Accept: fc.constantFrom('', 'text/html', 'application/xml', '*/*;q=0', 'application/problem+json', 'image/png'),
    'Accept-Charset': fc.constantFrom('latin1', 'utf-16', '*'),
    'Accept-Encoding': fc.constantFrom('gzip', 'br', 'x-unknown', ''),
    'X-Forwarded-For': fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1', ''),
    'X-HTTP-Method-Override': fc.constantFrom('DELETE', 'PATCH', 'GARBAGE'),
    Cookie: fc.constantFrom('sf_console=garbage', 'a=b; a=c', '=', 'sf_console='),
    Origin: fc.constantFrom('https://evil.example', 'null'),
    'If-None-Match': fc.constantFrom('*', '"x"', 'W/"x"'),
    Range: fc.constantFrom('bytes=0-0', 'bytes=9999-', 'garbage'),
    Expect: fc.constantFrom('100-continue'),
  },
  { requiredKeys: [] },
);
