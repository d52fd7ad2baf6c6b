import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './app.config.js';
import { generateSecret, MERCHANT_KEY_PREFIX, OPERATOR_KEY_PREFIX } from '../common/crypto/key-secret.js';

const KEY = generateSecret(OPERATOR_KEY_PREFIX);
/** The key with its last character changed: its checksum no longer matches. */
const mistyped = (key: string) => `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;

/** The ConfigError loadConfig throws for `env`, or a failure when it does not throw one. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('starts on the embedded database with documented defaults when nothing is set', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      production: false,
      logLevel: 'info',
      databaseUrl: null,
      dataDir: './data',
      operatorBootstrapKey: null,
    });
  });

  it('reads every variable it documents', () => {
    expect(
      loadConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        LOG_LEVEL: 'debug',
        DATA_DIR: 'memory://',
        DATABASE_URL: 'postgres://app@db.internal:5432/sizefit',
        OPERATOR_BOOTSTRAP_KEY: KEY,
        NODE_ENV: 'production',
      }),
    ).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      production: true,
      logLevel: 'debug',
      databaseUrl: 'postgres://app@db.internal:5432/sizefit',
      dataDir: 'memory://',
      operatorBootstrapKey: KEY,
    });
  });

  it('treats empty and blank variables as unset', () => {
    expect(loadConfig({ PORT: '', HOST: '  ', LOG_LEVEL: '', DATABASE_URL: ' ', DATA_DIR: '', OPERATOR_BOOTSTRAP_KEY: '' })).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      logLevel: 'info',
      databaseUrl: null,
      dataDir: './data',
      operatorBootstrapKey: null,
    });
  });

  it('accepts both postgres:// and postgresql:// connection strings', () => {
    for (const url of ['postgres://u@h/db', 'postgresql://u:pw@h:6543/db?sslmode=require']) {
      expect(loadConfig({ DATABASE_URL: url, OPERATOR_BOOTSTRAP_KEY: KEY }).databaseUrl).toBe(url);
    }
  });

  describe('a bad DATABASE_URL', () => {
    const cases = [
      'mysql://u:hunter2@h/db',
      'not a url',
      'hunter2',
      'postgres://u:hunter2@h',
      'postgres://u:hunter2@h/',
      'postgres://u:hunter2@h:notaport/db',
      'postgres://u:hunter2@/db',
      '//u:hunter2@h/db',
    ];

    it.each(cases)('%s is refused with a ConfigError', (url) => {
      configError({ DATABASE_URL: url, OPERATOR_BOOTSTRAP_KEY: KEY });
    });

    it.each(cases)('the message for %s is one line and never echoes the URL or its password', (url) => {
      const { message } = configError({ DATABASE_URL: url, OPERATOR_BOOTSTRAP_KEY: KEY });
      expect(message).not.toMatch(/[\r\n]/);
      expect(message.length).toBeGreaterThan(0);
      expect(message).not.toContain('hunter2');
      expect(message).not.toContain(url);
      expect(message).toContain('DATABASE_URL');
    });
  });

  it('refuses a production start without OPERATOR_BOOTSTRAP_KEY', () => {
    const { message } = configError({ NODE_ENV: 'production' });
    expect(message).toContain('OPERATOR_BOOTSTRAP_KEY');
    expect(message).not.toMatch(/[\r\n]/);
  });

  it('refuses an external database without OPERATOR_BOOTSTRAP_KEY', () => {
    const { message } = configError({ DATABASE_URL: 'postgres://u:hunter2@h/db' });
    expect(message).toContain('OPERATOR_BOOTSTRAP_KEY');
    expect(message).not.toContain('hunter2');
  });

  it('lets an embedded, non-production start run without OPERATOR_BOOTSTRAP_KEY', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).operatorBootstrapKey).toBeNull();
  });

  it.each([
    ['shorter than a key', 'sfo_tooShortToBeSafe1234567890z'],
    ['of 64 hex characters (openssl rand -hex 32)', 'f00d'.repeat(16)],
    ["of a merchant key's format", generateSecret(MERCHANT_KEY_PREFIX)],
    ['with a checksum that does not match', mistyped(generateSecret(OPERATOR_KEY_PREFIX))],
  ])('refuses an operator key %s, saying how to make one, without echoing it', (_, key) => {
    const { message } = configError({ OPERATOR_BOOTSTRAP_KEY: key });
    expect(message).toContain('OPERATOR_BOOTSTRAP_KEY');
    expect(message).toContain('npm run --silent operator-key');
    expect(message).not.toContain(key);
  });

  it('takes an operator key in the service format, as `npm run operator-key` makes them', () => {
    const key = generateSecret(OPERATOR_KEY_PREFIX);
    expect(loadConfig({ OPERATOR_BOOTSTRAP_KEY: key }).operatorBootstrapKey).toBe(key);
  });

  it('hashes console passwords at scrypt cost 14 unless PASSWORD_HASH_COST says otherwise, from 10 to 16', () => {
    expect(loadConfig({}).passwordHashCost).toBe(14);
    expect(loadConfig({ PASSWORD_HASH_COST: '16' }).passwordHashCost).toBe(16);
    expect(configError({ PASSWORD_HASH_COST: '9' }).message).toBe('PASSWORD_HASH_COST must be from 10 to 16, not 9');
    expect(configError({ PASSWORD_HASH_COST: '17' }).message).toContain('PASSWORD_HASH_COST');
    expect(configError({ PASSWORD_HASH_COST: 'high' }).message).toContain('whole number');
  });

  it('makes the default PUBLIC_URL of an IPv6 HOST a valid address, and refuses a HOST no URL can hold', () => {
    expect(loadConfig({ HOST: '::1', PORT: '4111' }).publicUrl).toBe('http://[::1]:4111');
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '4111' }).publicUrl).toBe('http://localhost:4111');
    expect(configError({ HOST: 'a b' }).message).toContain('HOST');
  });

  it.each(['10.0.0.0/33', 'yes', '999.1.1.1', 'loopback, nonsense'])('refuses TRUST_PROXY=%s by name, before anything starts', (value) => {
    expect(configError({ TRUST_PROXY: value }).message).toContain('TRUST_PROXY');
  });

  it('reads TRUST_PROXY as a number of hops whatever its digits, and keeps lists Express reads', () => {
    expect(loadConfig({ TRUST_PROXY: '999' }).trustProxy).toBe(999);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
  });

  it.each(['abc', '-1', '65536', '80.5', '1e3', '0x50', '3000abc'])('refuses PORT=%s', (port) => {
    const { message } = configError({ PORT: port });
    expect(message).toContain('PORT');
    expect(message).not.toMatch(/[\r\n]/);
  });

  it.each([
    ['0', 0],
    ['1', 1],
    ['65535', 65535],
    [' 8080 ', 8080],
  ])('accepts PORT=%j', (port, expected) => {
    expect(loadConfig({ PORT: port }).port).toBe(expected);
  });

  it.each(['verbose', 'INFO', 'log', '30'])('refuses LOG_LEVEL=%s', (level) => {
    const { message } = configError({ LOG_LEVEL: level });
    expect(message).toContain('LOG_LEVEL');
    expect(message).not.toMatch(/[\r\n]/);
  });

  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('accepts LOG_LEVEL=%s', (level) => {
    expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it('names its errors ConfigError so that main.ts prints them as one line', () => {
    expect(configError({ PORT: 'x' }).name).toBe('ConfigError');
  });

  it('limits 6000 requests a minute per key by default, takes 0 as "no limit", and refuses anything else', () => {
    expect(loadConfig({}).rateLimitPerMinute).toBe(6000);
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '120' }).rateLimitPerMinute).toBe(120);
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }).rateLimitPerMinute).toBe(0);
    for (const value of ['-1', '1.5', 'lots', '1e3']) {
      expect(configError({ RATE_LIMIT_PER_MINUTE: value }).message).toBe(`RATE_LIMIT_PER_MINUTE must be a whole number, not "${value}"`);
    }
  });

  describe('the seller console', () => {
    const platform = {
      PLATFORM_CLIENT_ID: 'client',
      PLATFORM_CLIENT_SECRET: 'secret',
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };

    it('derives PUBLIC_URL from HOST and PORT, and keeps a given one without its trailing slash', () => {
      expect(loadConfig({}).publicUrl).toBe('http://127.0.0.1:3000');
      expect(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
      expect(loadConfig({ PUBLIC_URL: 'https://fit.example.com/' }).publicUrl).toBe('https://fit.example.com');
      expect(configError({ PUBLIC_URL: 'ftp://fit.example.com' }).message).toMatch(/PUBLIC_URL/);
      expect(configError({ PUBLIC_URL: 'https://fit.example.com/?x=1' }).message).toMatch(/PUBLIC_URL/);
    });

    it('leaves the platform off unless its three secrets are set, and refuses a partial set', () => {
      expect(loadConfig({}).platform).toBeNull();
      for (const missing of Object.keys(platform)) {
        const partial: NodeJS.ProcessEnv = { ...platform, [missing]: undefined };
        expect(configError(partial).message).toMatch(/set together or not at all/);
      }
      expect(loadConfig(platform).platform).toMatchObject({
        baseUrl: 'https://{shop}',
        clientId: 'client',
        scopes: ['read_products', 'read_orders'],
        timeoutMs: 5000,
        jobPollSeconds: 2,
        retryDelaySeconds: 30,
        jobRetries: 8,
        reconcileCron: '0 4 * * *',
      });
      expect(loadConfig(platform).platform?.tokenKey).toEqual(Buffer.alloc(32, 7));
    });

    it('needs TOKEN_ENCRYPTION_KEY to be 32 bytes of base64', () => {
      for (const key of [Buffer.alloc(16).toString('base64'), 'not base64 at all!', 'a'.repeat(64)]) {
        expect(configError({ ...platform, TOKEN_ENCRYPTION_KEY: key }).message).toMatch(/TOKEN_ENCRYPTION_KEY/);
      }
    });

    it('checks the platform address, scopes and timeout', () => {
      expect(configError({ ...platform, PLATFORM_BASE_URL: 'https://example.com' }).message).toMatch(/\{shop\}/);
      expect(configError({ ...platform, PLATFORM_SCOPES: 'read products' }).message).toMatch(/PLATFORM_SCOPES/);
      expect(configError({ ...platform, PLATFORM_TIMEOUT_MS: '0' }).message).toMatch(/PLATFORM_TIMEOUT_MS/);
      for (const cron of ['daily', '0 4 * *', '0 4 * * * *', '0 4 ? * MON']) {
        expect(configError({ ...platform, PLATFORM_RECONCILE_CRON: cron }).message).toMatch(/PLATFORM_RECONCILE_CRON/);
      }
      expect(loadConfig({ ...platform, PLATFORM_RECONCILE_CRON: ' */15  * * * 1-5 ' }).platform?.reconcileCron).toBe('*/15 * * * 1-5');
      expect(
        loadConfig({ ...platform, PLATFORM_BASE_URL: 'http://127.0.0.1:9/shops/{shop}/', PLATFORM_SCOPES: 'read_orders' }).platform,
      ).toMatchObject({
        baseUrl: 'http://127.0.0.1:9/shops/{shop}',
        scopes: ['read_orders'],
      });
    });
  });

  it('limits each client address to four keys’ worth of requests unless RATE_LIMIT_PER_ADDRESS_PER_MINUTE says otherwise', () => {
    expect(loadConfig({}).rateLimitPerAddressPerMinute).toBe(24000);
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '100' }).rateLimitPerAddressPerMinute).toBe(400);
    expect(loadConfig({ RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '50' }).rateLimitPerAddressPerMinute).toBe(50);
    expect(() => loadConfig({ RATE_LIMIT_PER_ADDRESS_PER_MINUTE: 'lots' })).toThrow(ConfigError);
  });

  it('trusts no proxy unless TRUST_PROXY names one, as Express reads it', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(() => loadConfig({ TRUST_PROXY: 'every$body' })).toThrow(/TRUST_PROXY/);
  });

  it('caps open connections per client address at 256 by default; 0 turns the cap off', () => {
    expect(loadConfig({}).maxConnectionsPerAddress).toBe(256);
    expect(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '0' }).maxConnectionsPerAddress).toBe(0);
  });

  it('caps open connections across the process at 4096 by default, and cannot turn that cap off', () => {
    expect(loadConfig({}).maxConnections).toBe(4096);
    expect(loadConfig({ MAX_CONNECTIONS: '50' }).maxConnections).toBe(50);
    expect(configError({ MAX_CONNECTIONS: '0' }).message).toMatch(/MAX_CONNECTIONS must be at least 1/);
    expect(configError({ MAX_CONNECTIONS: 'many' }).message).toMatch(/MAX_CONNECTIONS/);
  });

  it('closes idle connections after 5 s by default, never later than a silent new one', () => {
    expect(loadConfig({}).keepAliveTimeoutMs).toBe(5_000);
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '2000' }).keepAliveTimeoutMs).toBe(2_000);
    expect(
      loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '65000', HEADERS_TIMEOUT_MS: '70000', REQUEST_TIMEOUT_MS: '90000' }).keepAliveTimeoutMs,
    ).toBe(65_000);
    expect(configError({ KEEP_ALIVE_TIMEOUT_MS: '0' }).message).toMatch(/KEEP_ALIVE_TIMEOUT_MS must be at least 1/);
    expect(configError({ KEEP_ALIVE_TIMEOUT_MS: 'soon' }).message).toMatch(/KEEP_ALIVE_TIMEOUT_MS/);
    expect(configError({ KEEP_ALIVE_TIMEOUT_MS: '10001' }).message).toMatch(/KEEP_ALIVE_TIMEOUT_MS must not exceed HEADERS_TIMEOUT_MS/);
  });

  it('shares rate limits through REDIS_URL only when it is a redis:// address', () => {
    expect(loadConfig({}).redisUrl).toBeNull();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl).toBe('redis://127.0.0.1:6379');
    expect(loadConfig({ REDIS_URL: 'rediss://cache.example.com:6380/1' }).redisUrl).toBe('rediss://cache.example.com:6380/1');
    expect(configError({ REDIS_URL: 'http://127.0.0.1:6379' }).message).toMatch(/REDIS_URL/);
  });

  it('cuts slow clients off after 10 s of headers or 30 s of request by default', () => {
    expect(loadConfig({})).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, shutdownGraceMs: 10_000 });
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '5000' })).toMatchObject({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 5000,
    });
    expect(configError({ HEADERS_TIMEOUT_MS: '0' }).message).toMatch(/HEADERS_TIMEOUT_MS/);
    expect(configError({ REQUEST_TIMEOUT_MS: 'soon' }).message).toMatch(/REQUEST_TIMEOUT_MS/);
    expect(configError({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }).message).toMatch(/must not exceed/);
  });
});
