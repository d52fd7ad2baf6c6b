import { afterAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { startApp, type TestApp } from '../support/app.js';

/** A raw connection from 127.0.0.1, and whether the server has closed it. */
interface Connection {
  readonly socket: Socket;
  closed: boolean;
}

async function listen(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer() as unknown as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function open(port: number): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const connection: Connection = { socket, closed: false };
    socket.on('close', () => (connection.closed = true));
    socket.on('error', () => undefined); // a reset is a close, seen above
    socket.once('connect', () => resolve(connection));
    socket.once('error', reject);
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds, or the time is up (the caller then checks what it expected). */
async function settle(done: () => boolean, ms = 2_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) await pause(20);
}

/** `GET /healthz` on an open connection: the status line of the answer. */
function health(connection: Connection): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (!text.includes('\r\n')) return;
      connection.socket.off('data', onData);
      resolve(text.slice(0, text.indexOf('\r\n')));
    };
    connection.socket.on('data', onData);
    connection.socket.once('close', () => reject(new Error('closed before answering')));
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

/** Opens `count` connections at once and waits until the server has closed the ones over its cap. */
async function openMany(port: number, count: number, cap: number): Promise<Connection[]> {
  const connections = await Promise.all(Array.from({ length: count }, () => open(port)));
  await settle(() => connections.filter((c) => c.closed).length >= count - cap);
  return connections;
}

describe('connections per client address', () => {
  const apps: TestApp[] = [];
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(apps.map((app) => app.close()));
  });

  async function serve(maxConnectionsPerAddress: number): Promise<number> {
    const t = await startApp({ maxConnectionsPerAddress });
    apps.push(t);
    return listen(t);
  }

  it('closes connections past the cap while the allowed ones are served, and frees a slot when one closes', async () => {
    const cap = 4;
    const port = await serve(cap);
    const first = await openMany(port, cap + 3, cap);
    sockets.push(...first.map((c) => c.socket));
    const allowed = first.filter((c) => !c.closed);
    expect({ allowed: allowed.length, closed: first.length - allowed.length }).toEqual({ allowed: cap, closed: 3 });
    for (const connection of allowed) expect(await health(connection)).toBe('HTTP/1.1 200 OK');

    // The one more is closed, until one of the allowed ones goes away.
    const extra = await openMany(port, 1, 0);
    expect(extra[0].closed).toBe(true);
    allowed[0].socket.destroy();
    await pause(200); // for the server to see it close
    const again = await openMany(port, 2, 1);
    sockets.push(...again.map((c) => c.socket));
    expect(again.map((c) => c.closed).sort()).toEqual([false, true]);
    expect(await health(again.find((c) => !c.closed) as Connection)).toBe('HTTP/1.1 200 OK');

    // Every slot comes back once they all close.
    for (const connection of [...allowed, ...again]) connection.socket.destroy();
    await pause(200);
    const afterwards = await openMany(port, cap, cap);
    sockets.push(...afterwards.map((c) => c.socket));
    for (const connection of afterwards) expect(await health(connection)).toBe('HTTP/1.1 200 OK');
  });

  it('takes any number of connections when the cap is 0', async () => {
    const port = await serve(0);
    const connections = await openMany(port, 40, 40);
    sockets.push(...connections.map((c) => c.socket));
    await pause(200);
    expect(connections.filter((c) => c.closed)).toHaveLength(0);
    const answers = await Promise.all(connections.map(health));
    expect(new Set(answers)).toEqual(new Set(['HTTP/1.1 200 OK']));
  });
});
