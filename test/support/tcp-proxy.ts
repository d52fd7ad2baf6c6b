/**
 * A TCP proxy in front of PostgreSQL that a test can cut, to take the database away from the service without
 * touching the server everyone else uses:
 *
 * - `refuse`: every open connection is closed and the port stops listening, so a new connection is refused at once
 *   (a database that is down, on a host that is up);
 * - `blackhole`: every open connection is closed, and new ones are accepted but never answered, no byte in either
 *   direction (a firewall that drops packets: only the client's own timeouts end the wait);
 * - `freeze`: open connections stay open but go silent, what is sent on them is dropped, and new ones are black-holed
 *   (a database host that is gone without closing anything: a query in progress never gets its answer).
 *
 * `restore()` forwards again on the same port; connections held silent are then closed, as a host that comes back
 * resets connections it no longer knows.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type Cut = 'refuse' | 'blackhole' | 'freeze';

export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Map<Socket, Socket>();
  private cut: Cut | null = null;
  /** Connections accepted since the proxy started, forwarded or not. */
  connections = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    public port: number,
  ) {}

  /** Starts forwarding from a free local port to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, 0);
    await proxy.listen();
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const rewritten = new URL(url);
    rewritten.hostname = '127.0.0.1';
    rewritten.port = String(this.port);
    return rewritten.toString();
  }

  /** How many connections are open through the proxy now (held, silent ones included). */
  get open(): number {
    return this.sockets.size;
  }

  async cutOff(how: Cut): Promise<void> {
    this.cut = how;
    if (how === 'freeze') {
      for (const [client, upstream] of this.pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        // Still read, so nothing pushes back: dropped on the floor.
        client.on('data', () => undefined);
        upstream.on('data', () => undefined);
      }
      return;
    }
    this.destroyAll();
    if (how === 'refuse') await this.unlisten();
  }

  async restore(): Promise<void> {
    this.cut = null;
    this.destroyAll();
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    this.cut = 'refuse';
    this.destroyAll();
    await this.unlisten();
  }

  private destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.pairs.clear();
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private accept(client: Socket): void {
    this.connections++;
    this.track(client);
    if (this.cut === 'blackhole' || this.cut === 'freeze') {
      // Accepted, never answered: what the client sends is read and dropped.
      client.on('data', () => undefined);
      return;
    }
    const upstream = createConnection(this.target);
    this.track(upstream);
    this.pairs.set(client, upstream);
    client.on('close', () => {
      this.pairs.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private async listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  private async unlisten(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
