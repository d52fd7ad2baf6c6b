import type { Socket } from 'node:net';
import type { Client, ClientConfig, Pool } from 'pg';

/** How often the watchdog looks at its connections, how often it asks for `SELECT 1`, and how long a silence trips it. */
const LOOK_EVERY_MS = 100;
const PING_EVERY_MS = 200;
const SILENCE_MS = 400;

/** What pg's pool keeps of its connections: `_clients` is internal to pg-pool, stable across its 3.x releases. */
interface PoolInternals {
  readonly options: ClientConfig;
  /** The class the pool opens its connections with (ormconfig.ts gives its own). */
  readonly Client: new (config: ClientConfig) => Client;
  readonly _clients: ReadonlyArray<Connected>;
}

/** A pg client's socket (`connection.stream`, internal to pg). */
interface Connected {
  readonly connection?: { readonly stream?: Socket };
}

/**
 * A database that vanishes without closing its connections (a network partition, a host gone) leaves the pool's
 * sockets open and silent: a query on one would wait for `query_timeout` (20 s). The watchdog keeps a connection of
 * its own and sends `SELECT 1` on it every 200 ms. When a ping has waited 400 ms and no connection, the pool's or its
 * own, has received a byte for as long (a busy server still answers something; a silent one sends nothing), the
 * server is taken to be unreachable and every pooled connection is destroyed: queries in flight on them fail with
 * "Connection terminated" (503 `unavailable`), and later ones open new connections, which fail within the connection
 * timeout (750 ms, `CONNECT_WITHIN_MS`) while the database is away. The worst case, from the moment the server falls silent to the
 * queries' failure, is about 700 ms.
 *
 * Only silence trips it: a refused or reset connection already fails the pool's queries by itself. The silence is
 * judged after the event loop has read its sockets and counted afresh after a stall of the event loop, so a busy
 * process is not mistaken for a silent server.
 */
export class ConnectionWatchdog {
  private probe: Client | null = null;
  /** When the outstanding ping (or the probe's connection) was sent; null when none is outstanding. */
  private pingSentAt: number | null = null;
  private lastPingAt = 0;
  private lastReceivedAt = Date.now();
  private lastLookAt = Date.now();
  private bytesRead = new Map<Socket, number>();
  private readonly timer: NodeJS.Timeout;
  /** Set by `stop`: a look already scheduled by the timer then does nothing (it would open a new probe). */
  private stopped = false;

  private constructor(private readonly pool: Pool & PoolInternals) {
    this.timer = setInterval(() => setImmediate(() => this.look()), LOOK_EVERY_MS).unref();
  }

  /** Starts watching `pool`. */
  static start(pool: Pool): ConnectionWatchdog {
    return new ConnectionWatchdog(pool as Pool & PoolInternals);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.dropProbe();
  }

  private look(): void {
    if (this.stopped) return;
    const now = Date.now();
    // After a stall of the event loop, nothing was read for a while whatever the server did: its silence is counted
    // again from now, once the loop can read the answers (a handshake takes several turns of it).
    const stalled = now - this.lastLookAt > 2 * LOOK_EVERY_MS;
    this.lastLookAt = now;
    if (this.received() || stalled) this.lastReceivedAt = now;
    if (this.pingSentAt === null) {
      if (now - this.lastPingAt >= PING_EVERY_MS) this.ping(now);
    } else if (now - this.pingSentAt >= SILENCE_MS && now - this.lastReceivedAt >= SILENCE_MS) {
      this.dropProbe();
      for (const client of this.pool._clients) client.connection?.stream?.destroy();
      this.bytesRead.clear();
    }
  }

  private ping(now: number): void {
    this.pingSentAt = this.lastPingAt = now;
    const connected = this.probe;
    const probe = connected ?? this.connect();
    const answered = connected ? probe.query('SELECT 1') : probe.connect().then(() => probe.query('SELECT 1'));
    answered.then(
      () => {
        if (this.probe !== probe) return;
        this.pingSentAt = null;
        this.lastReceivedAt = Date.now();
      },
      () => {
        // Refused, reset or closed: the pool's connections see the same by themselves. Reconnect next time.
        if (this.probe === probe) this.dropProbe();
      },
    );
  }

  private connect(): Client {
    const probe = new this.pool.Client({ ...this.pool.options, query_timeout: undefined, statement_timeout: undefined });
    probe.on('error', () => undefined);
    this.probe = probe;
    return probe;
  }

  /** Whether any connection received bytes since the last look (a new one counts from zero). */
  private received(): boolean {
    const sockets = [...this.pool._clients, this.probe as Connected | null].map((client) => client?.connection?.stream);
    const now = new Map<Socket, number>();
    let received = false;
    for (const socket of sockets) {
      if (!socket) continue;
      now.set(socket, socket.bytesRead);
      if (socket.bytesRead > (this.bytesRead.get(socket) ?? 0)) received = true;
    }
    this.bytesRead = now;
    return received;
  }

  private dropProbe(): void {
    (this.probe as Connected | null)?.connection?.stream?.destroy();
    this.probe = null;
    this.pingSentAt = null;
  }
}
