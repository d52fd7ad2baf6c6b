import { isIPv6 } from 'node:net';
import express from 'express';
import { isWellFormedSecret, OPERATOR_KEY_PREFIX } from '../common/crypto/key-secret.js';

/** The service's configuration, read once from the environment and validated before anything starts. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  readonly production: boolean;
  readonly logLevel: string;
  /** PostgreSQL connection string; `null` selects the embedded database. */
  readonly databaseUrl: string | null;
  /** Where the embedded database lives; `memory://` keeps it in memory. */
  readonly dataDir: string;
  /** The operator bootstrap secret from the environment, if one was given. */
  readonly operatorBootstrapKey: string | null;
  /** Requests per minute per key on /v1; 0 turns the limit off. */
  readonly rateLimitPerMinute: number;
  /** Requests per minute per client address on /v1, whatever key they carry; 0 turns this limit off. */
  readonly rateLimitPerAddressPerMinute: number;
  /** Express's `trust proxy`: which proxies' `X-Forwarded-For` names the client; `false` trusts none. */
  readonly trustProxy: boolean | number | string;
  /** Open connections one client address (an IPv6 /64) may hold at once; 0 turns the cap off. */
  readonly maxConnectionsPerAddress: number;
  /** Open connections the whole process may hold at once: below its limit of open files, whoever the clients are. */
  readonly maxConnections: number;
  /** Where rate-limit counters live when several instances must share them; `null`: in this process's memory. */
  readonly redisUrl: string | null;
  /** How long a client may take to send a request's headers, and the whole request, before it is cut off. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** How long a connection may stay idle between requests before it is closed. */
  readonly keepAliveTimeoutMs: number;
  /** On SIGTERM or SIGINT: how long requests in flight may take to finish before their connections are cut. */
  readonly shutdownGraceMs: number;
  /** Where browsers reach the service (no trailing slash): the console's OAuth redirect URI and cookie security. */
  readonly publicUrl: string;
  /**
   * scrypt's cost for console passwords, as log2 of N (r = 8, p = 5): 14 by default (16 MiB and tens of milliseconds
   * per hash). Each hash records its own parameters, so raising it leaves existing passwords verifiable.
   */
  readonly passwordHashCost: number;
  /** The e-commerce platform the console connects stores to; `null` when not configured. */
  readonly platform: PlatformConfig | null;
}

/** A Shopify-style platform app: authorization-code OAuth against `baseUrl` with `{shop}` filled in. */
export interface PlatformConfig {
  /** e.g. `https://{shop}`; tests use `http://127.0.0.1:<port>/shops/{shop}`. */
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
  /** How long the code exchange may take before the connection fails. */
  readonly timeoutMs: number;
  /** The AES-256-GCM key that seals access tokens at rest. */
  readonly tokenKey: Buffer;
  /** How often an idle worker looks for the shops' notifications to process (`PLATFORM_JOB_POLL_SECONDS`, default 2). */
  readonly jobPollSeconds: number;
  /** The wait before the first retry of a failed job, doubled at each (`PLATFORM_RETRY_DELAY_SECONDS`, default 30). */
  readonly retryDelaySeconds: number;
  /** Attempts after the first before a job goes to the dead-letter list (`PLATFORM_JOB_RETRIES`, default 8: about 45 minutes). */
  readonly jobRetries: number;
  /**
   * When every connected shop's catalog is read again in full, to repair what notifications missed: a cron expression
   * in UTC (`PLATFORM_RECONCILE_CRON`, default `0 4 * * *`, daily at 04:00).
   */
  readonly reconcileCron: string;
}

/** A configuration problem, reported as one readable line instead of a stack trace. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const production = env.NODE_ENV === 'production';
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  if (databaseUrl !== null) assertPostgresUrl(databaseUrl);

  const operatorBootstrapKey = nonEmpty(env.OPERATOR_BOOTSTRAP_KEY);
  if (operatorBootstrapKey === null && (production || databaseUrl !== null)) {
    throw new ConfigError(
      'OPERATOR_BOOTSTRAP_KEY is required when NODE_ENV=production or DATABASE_URL is set ' +
        '(only an embedded, non-production start creates one by itself); make one with `npm run --silent operator-key`',
    );
  }
  // A key in the service's own format (`sfo_`, 40 random base62 characters, a checksum): the API gate refuses any
  // other token without a lookup, and logs and answers blank every token of that shape wherever it shows up.
  if (operatorBootstrapKey !== null && !isWellFormedSecret(operatorBootstrapKey, OPERATOR_KEY_PREFIX)) {
    throw new ConfigError(
      `OPERATOR_BOOTSTRAP_KEY must be an operator key in the service's format (${OPERATOR_KEY_PREFIX}_…): ` +
        'make one with `npm run --silent operator-key`',
    );
  }

  const logLevel = nonEmpty(env.LOG_LEVEL) ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`);
  }

  const headersTimeoutMs = parsePositive('HEADERS_TIMEOUT_MS', env.HEADERS_TIMEOUT_MS, 10_000);
  const requestTimeoutMs = parsePositive('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 30_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS');
  // An idle connection is as silent as one yet to send its request, and must not be allowed longer.
  const keepAliveTimeoutMs = parsePositive('KEEP_ALIVE_TIMEOUT_MS', env.KEEP_ALIVE_TIMEOUT_MS, Math.min(5_000, headersTimeoutMs));
  if (keepAliveTimeoutMs > headersTimeoutMs) throw new ConfigError('KEEP_ALIVE_TIMEOUT_MS must not exceed HEADERS_TIMEOUT_MS');
  const shutdownGraceMs = parsePositive('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, 10_000);
  const port = parsePort(env.PORT);
  const host = nonEmpty(env.HOST) ?? '127.0.0.1';
  const rateLimitPerMinute = parseCount('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 6000);
  return {
    port,
    host,
    production,
    logLevel,
    databaseUrl,
    dataDir: nonEmpty(env.DATA_DIR) ?? './data',
    operatorBootstrapKey,
    rateLimitPerMinute,
    // Several integrations may share an address (one backend, several stores' keys): room for a few keys' worth.
    rateLimitPerAddressPerMinute: parseCount(
      'RATE_LIMIT_PER_ADDRESS_PER_MINUTE',
      env.RATE_LIMIT_PER_ADDRESS_PER_MINUTE,
      rateLimitPerMinute * 4,
    ),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    maxConnectionsPerAddress: parseCount('MAX_CONNECTIONS_PER_ADDRESS', env.MAX_CONNECTIONS_PER_ADDRESS, 256),
    // The server lowers it to fit under the process's limit of open files where that is lower (Linux).
    maxConnections: parsePositive('MAX_CONNECTIONS', env.MAX_CONNECTIONS, 4_096),
    redisUrl: parseRedisUrl(env.REDIS_URL),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs,
    shutdownGraceMs,
    publicUrl: parsePublicUrl(env.PUBLIC_URL, host, port),
    passwordHashCost: parseRange('PASSWORD_HASH_COST', env.PASSWORD_HASH_COST, 14, 10, 16),
    platform: parsePlatform(env),
  };
}

/**
 * `TRUST_PROXY`: unset or `false` trusts no proxy (the socket's address is the client); `true` trusts every hop;
 * a number trusts that many hops; anything else is Express's list of trusted addresses or subnets
 * (`loopback`, `10.0.0.0/8, 192.168.1.1`).
 */
function parseTrustProxy(value: string | undefined): boolean | number | string {
  const raw = nonEmpty(value);
  if (raw === null || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const refused = new ConfigError(
    `TRUST_PROXY must be true, false, a number of hops or a list of addresses and subnets (loopback, 10.0.0.0/8), not "${raw}"`,
  );
  if (!/^[0-9A-Za-z.:/, ]+$/.test(raw)) throw refused;
  try {
    // Express reads the list when it is set (proxy-addr): any address or subnet it cannot read is refused now, by name.
    express().set('trust proxy', raw);
  } catch {
    throw refused;
  }
  return raw;
}

function parseRedisUrl(value: string | undefined): string | null {
  const raw = nonEmpty(value);
  if (raw === null) return null;
  const url = parseUrl('REDIS_URL', raw);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss:// (e.g. redis://127.0.0.1:6379)');
  }
  return raw;
}

function parsePositive(name: string, value: string | undefined, fallback: number): number {
  const parsed = parseCount(name, value, fallback);
  if (parsed < 1) throw new ConfigError(`${name} must be at least 1`);
  return parsed;
}

function parsePublicUrl(value: string | undefined, host: string, port: number): string {
  const raw = nonEmpty(value);
  if (raw === null) {
    const named = host === '0.0.0.0' || host === '::' ? 'localhost' : isIPv6(host) ? `[${host}]` : host;
    try {
      return new URL(`http://${named}:${port}`).toString().replace(/\/+$/, '');
    } catch {
      throw new ConfigError(`HOST must be a host name or an IP address, not "${host}"`);
    }
  }
  const url = parseUrl('PUBLIC_URL', raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('PUBLIC_URL must be an http(s) URL');
  if (url.search || url.hash || url.username) throw new ConfigError('PUBLIC_URL must be a plain address such as https://fit.example.com');
  return raw.replace(/\/+$/, '');
}

/** All three secrets or none: a half-configured platform would fail only when a merchant tries to connect. */
function parsePlatform(env: NodeJS.ProcessEnv): PlatformConfig | null {
  const clientId = nonEmpty(env.PLATFORM_CLIENT_ID);
  const clientSecret = nonEmpty(env.PLATFORM_CLIENT_SECRET);
  const key = nonEmpty(env.TOKEN_ENCRYPTION_KEY);
  if (clientId === null && clientSecret === null && key === null) return null;
  if (clientId === null || clientSecret === null || key === null) {
    throw new ConfigError('PLATFORM_CLIENT_ID, PLATFORM_CLIENT_SECRET and TOKEN_ENCRYPTION_KEY are set together or not at all');
  }
  const tokenKey = Buffer.from(key, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || tokenKey.length !== 32) {
    throw new ConfigError('TOKEN_ENCRYPTION_KEY must be 32 random bytes in base64 (openssl rand -base64 32)');
  }
  const baseUrl = nonEmpty(env.PLATFORM_BASE_URL) ?? 'https://{shop}';
  if (!baseUrl.includes('{shop}')) throw new ConfigError('PLATFORM_BASE_URL must contain {shop}, e.g. https://{shop}');
  const sample = parseUrl('PLATFORM_BASE_URL', baseUrl.replace('{shop}', 'shop.example'));
  if (sample.protocol !== 'http:' && sample.protocol !== 'https:') throw new ConfigError('PLATFORM_BASE_URL must be an http(s) URL');
  const scopes = (nonEmpty(env.PLATFORM_SCOPES) ?? 'read_products,read_orders').split(',').map((scope) => scope.trim());
  if (scopes.some((scope) => !/^[a-z_]+$/.test(scope))) {
    throw new ConfigError('PLATFORM_SCOPES must be a comma-separated list such as read_products,read_orders');
  }
  const timeoutMs = parsePositive('PLATFORM_TIMEOUT_MS', env.PLATFORM_TIMEOUT_MS, 5000);
  const jobPollSeconds = parsePositive('PLATFORM_JOB_POLL_SECONDS', env.PLATFORM_JOB_POLL_SECONDS, 2);
  const retryDelaySeconds = parsePositive('PLATFORM_RETRY_DELAY_SECONDS', env.PLATFORM_RETRY_DELAY_SECONDS, 30);
  const jobRetries = parseCount('PLATFORM_JOB_RETRIES', env.PLATFORM_JOB_RETRIES, 8);
  const reconcileCron = (nonEmpty(env.PLATFORM_RECONCILE_CRON) ?? '0 4 * * *').trim().replace(/\s+/g, ' ');
  if (!/^[\d*,/-]+( [\d*,/-]+){4}$/.test(reconcileCron)) {
    throw new ConfigError('PLATFORM_RECONCILE_CRON must be a cron expression of five fields, such as 0 4 * * * (daily at 04:00 UTC)');
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    clientId,
    clientSecret,
    scopes,
    timeoutMs,
    tokenKey,
    jobPollSeconds,
    retryDelaySeconds,
    jobRetries,
    reconcileCron,
  };
}

function parseUrl(name: string, value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
}

/** Injection token of the validated AppConfig: `@Inject(APP_CONFIG) config: AppConfig`. */
export const APP_CONFIG = Symbol('AppConfig');

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function parsePort(value: string | undefined): number {
  const raw = nonEmpty(value) ?? '3000';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, not "${raw}"`);
  }
  return port;
}

function parseCount(name: string, value: string | undefined, fallback: number): number {
  const raw = nonEmpty(value);
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new ConfigError(`${name} must be a whole number, not "${raw}"`);
  return Number(raw);
}

function parseRange(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  const count = parseCount(name, value, fallback);
  if (count < min || count > max) throw new ConfigError(`${name} must be from ${min} to ${max}, not ${count}`);
  return count;
}

function assertPostgresUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('DATABASE_URL is not a valid URL (expected postgres://user@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://, not "${url.protocol}//"`);
  }
  if (!url.hostname || url.pathname.length <= 1) {
    throw new ConfigError('DATABASE_URL must name a host and a database (postgres://user@host:5432/database)');
  }
}
