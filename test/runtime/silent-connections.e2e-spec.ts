import { describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { type TestApp, useApp } from '../support/app.js';

/**
 * Connections that hold a socket without asking for anything (bounded-express-adapter.ts): each is closed
 * HEADERS_TIMEOUT_MS after it connected, and the process as a whole holds at most MAX_CONNECTIONS, evicting the
 * oldest connection that has not sent a request yet to make room for a new one, so that a flood of them cannot keep
 * other clients out.
 */

/** A raw client connection: what the server sent on it, and when the server ended it (ms after it connected). */
interface Client {
  readonly socket: Socket;
  received: string;
  endedAfterMs: number | null;
  readonly ended: Promise<void>;
}

async function listening(t: TestApp): Promise<{ server: Server; port: number }> {
  const server = t.app.getHttpServer() as unknown as Server;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * Connects from `localAddress` (Linux routes all of 127.0.0.0/8 to loopback). The client keeps its side open when
 * the server ends: a client that wants to hold the socket does not answer a FIN, so the server must close it itself.
 */
function open(port: number, localAddress = '127.0.0.1'): Promise<Client> {
  return new Promise((resolve, reject) => {
    const connectedAt = performance.now();
    const socket = connect({ port, host: '127.0.0.1', localAddress, allowHalfOpen: true });
    let ended = (): void => undefined;
    const client: Client = { socket, received: '', endedAfterMs: null, ended: new Promise((resolve) => (ended = resolve)) };
    socket.on('data', (chunk: Buffer) => (client.received += chunk.toString('latin1')));
    const end = () => {
      client.endedAfterMs ??= performance.now() - connectedAt;
      ended();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', () => undefined); // a reset is an end, seen above
    socket.once('connect', () => resolve(client));
    socket.once('error', reject);
  });
}

/** Each connection the server accepts from now on, and how long it stayed open (ms), as the server saw it. */
function watchLifetimes(server: Server): { lifetimes: number[]; stop(): void } {
  const lifetimes: number[] = [];
  const watch = (socket: Socket) => {
    const at = performance.now();
    socket.once('close', () => lifetimes.push(performance.now() - at));
  };
  server.on('connection', watch);
  return { lifetimes, stop: () => server.off('connection', watch) };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How late this process's timers run, at worst, from now until `late()` is called (ms). The server runs in the test's
 * process: on a machine too busy to run it, its timers fire late by as much, so the upper bounds on when it closes a
 * connection widen by that much (and no more); the lower bounds hold whatever the load.
 */
function lateness(): () => number {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  return () => {
    delay.disable();
    return delay.max / 1e6;
  };
}

async function settle(done: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!done() && performance.now() < until) await pause(10);
}

const openConnections = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

/** Waits until the server holds no connection (those of an earlier test closed). */
async function drained(server: Server): Promise<void> {
  for (let wait = 0; wait < 100 && (await openConnections(server)) > 0; wait++) await pause(20);
}

/** `GET /healthz` on an open connection, then waits for the answer's status line. */
function health(client: Client): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (!text.includes('\r\n\r\n')) return;
      client.socket.off('data', onData);
      resolve(text.slice(0, text.indexOf('\r\n')));
    };
    client.socket.on('data', onData);
    client.socket.once('end', () => reject(new Error('ended before answering')));
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

describe('connections that send nothing', () => {
  const HEADERS_TIMEOUT_MS = 1_000;
  const KEEP_ALIVE_TIMEOUT_MS = 300;
  const t = useApp({ headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: 2_000, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS });

  it('closes all of 1,000 silent connections from one address within HEADERS_TIMEOUT_MS + 1 s, the admitted ones at the deadline', async () => {
    const { server, port } = await listening(t);
    await drained(server);
    const watched = watchLifetimes(server);
    const late = lateness();
    const clients: Client[] = [];
    try {
      clients.push(...(await Promise.all(Array.from({ length: 1_000 }, () => open(port)))));
      await settle(() => watched.lifetimes.length === 1_000, HEADERS_TIMEOUT_MS + 30_000);
      await settle(() => clients.every((c) => c.endedAfterMs !== null), 5_000);
      const lateMs = late();

      // Closed by the server, not half-closed: none is left open on its side, and no client must answer first.
      expect(watched.lifetimes).toHaveLength(1_000);
      expect(await openConnections(server)).toBe(0);
      expect(clients.filter((c) => c.endedAfterMs === null)).toHaveLength(0);
      // Those over MAX_CONNECTIONS_PER_ADDRESS (256) at once (however late the process ran); the ones admitted when
      // their time was up, not before.
      const admitted = watched.lifetimes.filter((ms) => ms >= HEADERS_TIMEOUT_MS / 2 + lateMs);
      expect(admitted.length).toBeGreaterThanOrEqual(lateMs < HEADERS_TIMEOUT_MS / 2 ? 256 : 0);
      if (admitted.length) expect(Math.min(...admitted)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 5);
      expect(Math.max(...watched.lifetimes)).toBeLessThan(HEADERS_TIMEOUT_MS + 1_000 + lateMs);
      // A client that asked for nothing is owed no answer: nothing is written to it.
      expect(clients.filter((c) => c.received !== '')).toHaveLength(0);
    } finally {
      watched.stop();
      for (const client of clients) client.socket.destroy();
    }
  }, 60_000);

  it('answers 408 and closes a connection whose head is incomplete HEADERS_TIMEOUT_MS after it connected, however late its first byte', async () => {
    const { server, port } = await listening(t);
    await drained(server);
    const watched = watchLifetimes(server);
    const lag = lateness();
    const early = await open(port);
    const late = await open(port);
    try {
      early.socket.write('GET /healthz HTTP/1.1\r\n');
      await pause(HEADERS_TIMEOUT_MS * 0.7);
      late.socket.write('GET /healthz HTTP/1.1\r\n');
      await Promise.all([early.ended, late.ended]);
      const lateMs = lag();
      for (const answer of [early.received, late.received]) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(answer).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/);
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 408, code: 'request_timeout' });
      }
      // Node's own limit would count from the first byte: 1.7 s for the late one.
      for (const client of [early, late]) {
        expect(client.endedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 5);
        expect(client.endedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 500 + lateMs);
      }
      // Closed on the server's side too, though neither client closed its own.
      await settle(() => watched.lifetimes.length === 2, 200 + lateMs);
      expect(watched.lifetimes).toHaveLength(2);
    } finally {
      watched.stop();
      early.socket.destroy();
      late.socket.destroy();
    }
  });
});

describe('idle connections', () => {
  const KEEP_ALIVE_TIMEOUT_MS = 300;
  const t = useApp({ keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS });

  it('closes a connection idle after its answer once KEEP_ALIVE_TIMEOUT_MS (and the second Node adds) has passed', async () => {
    const { server, port } = await listening(t);
    const watched = watchLifetimes(server);
    const client = await open(port);
    try {
      expect(await health(client)).toBe('HTTP/1.1 200 OK');
      const answeredAt = performance.now();
      await settle(() => watched.lifetimes.length === 1, 3_000);
      const idleMs = performance.now() - answeredAt;
      expect(watched.lifetimes).toHaveLength(1);
      // Node keeps an idle connection a second past the timeout it announces (`Keep-Alive: timeout=`), so that the
      // client, not the server, closes it first.
      expect(idleMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS);
      expect(idleMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 1_000 + 300);
    } finally {
      watched.stop();
      client.socket.destroy();
    }
  });
});

describe('open connections across the process', () => {
  const MAX_CONNECTIONS = 50;
  // HEADERS_TIMEOUT_MS stays at its 10 s: the cap alone must keep room for other clients.
  const t = useApp({ maxConnections: MAX_CONNECTIONS });

  it('holds a flood of silent connections from many addresses at MAX_CONNECTIONS while /healthz keeps answering', async () => {
    const { server, port } = await listening(t);
    const flood: Client[] = [];
    const opened: Promise<unknown>[] = [];
    let peak = 0;
    let flooding = true;
    const sampler = setInterval(() => void openConnections(server).then((count) => (peak = Math.max(peak, count))), 5);
    // 10 connections every 10 ms for 3 s, from 127.0.0.2 to 127.0.0.201, each sending nothing.
    const attack = (async () => {
      for (let next = 0; flooding; next++) {
        for (let i = 0; i < 10; i++) {
          const localAddress = `127.0.0.${2 + ((next * 10 + i) % 200)}`;
          const connecting = open(port, localAddress).then((client) => {
            flood.push(client);
            client.socket.once('end', () => client.socket.destroy());
          });
          opened.push(connecting.catch(() => undefined));
        }
        await pause(10);
      }
    })();
    const statuses: number[] = [];
    const started = performance.now();
    try {
      while (performance.now() - started < 3_000) {
        // A new connection each time, from an address the flood does not use.
        statuses.push(
          await t
            .http()
            .get('/healthz')
            .set('Connection', 'close')
            .then(
              (answer) => answer.status,
              () => 0,
            ), // refused or reset
        );
        await pause(50);
      }
      flooding = false;
      await attack;
      await Promise.all(opened);
      await pause(50);
      const held = await openConnections(server);

      expect(flood.length).toBeGreaterThan(1_000);
      expect(statuses.length).toBeGreaterThanOrEqual(20);
      expect(new Set(statuses)).toEqual(new Set([200]));
      expect(peak).toBeLessThanOrEqual(MAX_CONNECTIONS);
      expect(held).toBe(MAX_CONNECTIONS);
      expect(flood.filter((c) => c.endedAfterMs === null)).toHaveLength(MAX_CONNECTIONS);
    } finally {
      flooding = false;
      clearInterval(sampler);
      await attack;
      await Promise.all(opened);
      for (const client of flood) client.socket.destroy();
    }
  });

  it('closes a connection past MAX_CONNECTIONS at once when every open one has sent its request', async () => {
    const { server, port } = await listening(t);
    await drained(server);
    const busy: Client[] = [];
    try {
      for (let i = 0; i < MAX_CONNECTIONS; i++) busy.push(await open(port, `127.0.1.${1 + (i % 200)}`));
      for (const client of busy) expect(await health(client)).toBe('HTTP/1.1 200 OK');
      const extra = await open(port, '127.0.2.1');
      await settle(() => extra.endedAfterMs !== null, 500);
      expect(extra.endedAfterMs).not.toBeNull();
      expect(extra.received).toBe('');
      // The ones kept open still serve.
      for (const client of busy.slice(0, 3)) expect(await health(client)).toBe('HTTP/1.1 200 OK');
    } finally {
      for (const client of busy) client.socket.destroy();
    }
  });
});
