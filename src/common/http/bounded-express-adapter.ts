import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, IncomingMessage, type Server, type ServerOptions, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Duplex } from 'node:stream';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { PROBLEMS, type ProblemCode } from '../problems/problem-catalog.js';
import { problemBody } from '../problems/problem-details.filter.js';
import { ProblemError } from '../problems/problem-error.js';
import { connectionKey } from './client-address.js';

interface ServerLimits {
  /** A client must finish sending the request's headers within this time… */
  readonly headersTimeoutMs: number;
  /** …and the whole request within this one. */
  readonly requestTimeoutMs: number;
  /** An idle connection is closed after this long without a request (and Node's extra second: clients close first). */
  readonly keepAliveTimeoutMs: number;
  /** Open connections one client address (an IPv6 /64) may hold at once; 0 turns the cap off. */
  readonly maxConnectionsPerAddress: number;
  /** Open connections the process may hold at once, lowered to fit under its limit of open files. */
  readonly maxConnections: number;
  /** On shutdown, how long requests in flight may take to finish. */
  readonly shutdownGraceMs: number;
}

/**
 * Express, on a Node HTTP server built with time and connection limits: a client sending its request slowly (a byte
 * every few seconds) is cut off with 408, and one sending nothing is closed, instead of holding a socket forever; an
 * idle connection is closed after the keep-alive timeout; and open connections are capped per address and for the
 * whole process. Node enforces its time limits when it checks its connections, so the check runs every second rather
 * than Node's default 30.
 */
export class BoundedExpressAdapter extends ExpressAdapter {
  /** Open connections, each with the answer it is writing, if any (Node's `_httpMessage`). */
  private readonly connections = new Set<Socket & { _httpMessage?: ServerResponse | null }>();
  private shuttingDown = false;

  constructor(
    private readonly limits: ServerLimits,
    /** Where a request refused before Express sees it is logged. */
    private readonly log: Logger | null = null,
  ) {
    super(exactPaths());
  }

  /**
   * A JSON answer is written as `res.json` would write it, without what `res.json` and `res.send` do on the way for
   * answers this service never gives: read the JSON settings, look the type up in the MIME table and parse it back
   * to add its charset, compute an ETag (switched off) and test freshness (no answer carries a validator). A
   * stream, a string, an error, an answer whose type is set already, and 204 and 304 go to Nest's own reply.
   */
  override reply(response: ServerResponse, body: unknown, statusCode?: number): unknown {
    const status = statusCode ?? response.statusCode;
    const plain = typeof body === 'object' && body !== null && (Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype);
    if (!plain || status === 204 || status === 304 || response.getHeader('Content-Type') !== undefined) {
      return super.reply(response, body, statusCode);
    }
    const text = JSON.stringify(body);
    response.statusCode = status;
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(text));
    // Node writes no body for HEAD, and keeps the length of the body a GET would get, as Express does.
    response.end(text);
    return response;
  }

  /** True from the moment shutdown begins: `/readyz` answers 503, so that a balancer stops sending requests. */
  get draining(): boolean {
    return this.shuttingDown;
  }

  override initHttpServer(): void {
    const server = createServer(
      {
        headersTimeout: this.limits.headersTimeoutMs,
        requestTimeout: this.limits.requestTimeoutMs,
        keepAliveTimeout: this.limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: 1_000,
        ...expressPrototypes(this.getInstance()),
      },
      this.getInstance(),
    );
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, this.log));
    // Tracked per connection, not per request, so that a request pays nothing for shutdown but one test.
    server.on('connection', (socket: Socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    // The cap per address first: a connection it refuses takes no place from another under the process's cap.
    if (this.limits.maxConnectionsPerAddress > 0) capConnectionsPerAddress(server, this.limits.maxConnectionsPerAddress, this.log);
    const headArrived = boundOpenConnections(
      server,
      this.limits.headersTimeoutMs,
      connectionCap(this.limits.maxConnections, this.log),
      this.log,
    );
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      headArrived(request.socket as Socket);
      // A request that arrives while the service is shutting down closes its connection with its answer, so that
      // keep-alive clients move to another instance.
      if (this.shuttingDown) response.setHeader('Connection', 'close');
    });
    this.httpServer = server;
  }

  /**
   * Shutdown's first step, before the database is closed: take no new connection; answer every request already sent,
   * and any sent on an open connection meanwhile, each answer closing its connection; and after `shutdownGraceMs`,
   * cut whatever is left.
   */
  override async beforeClose(): Promise<void> {
    super.beforeClose();
    this.shuttingDown = true;
    // The answers still to come close their connections too, or their clients would send the next request on them.
    for (const { _httpMessage: response } of this.connections) {
      if (response && !response.headersSent) response.setHeader('Connection', 'close');
    }
    const server = this.httpServer as Server;
    // Stops listening without closing the idle connections at once, as http.Server#close would: one may hold a request
    // sent but not read yet, which would be lost. They are closed below, between requests.
    NetServer.prototype.close.call(server);
    // Each connection ends after its next answer, or when it has been idle for the keep-alive timeout: closing an idle
    // one sooner races with a request its client may be sending on it. One that never sent a request ends at its
    // deadline for one.
    const deadline = Date.now() + this.limits.shutdownGraceMs;
    while (Date.now() < deadline && (await openConnections(server)) > 0) await sleep(20);
    server.closeAllConnections();
  }

  /**
   * The last step: the server stopped listening in `beforeClose` already, and may have said so (its `close` event):
   * Express's adapter would wait for that event again, for ever.
   */
  override close(): Promise<void> | undefined {
    const server = this.httpServer as Server | undefined;
    if (!this.shuttingDown || !server || server.listening) return super.close() as Promise<void> | undefined;
    server.closeAllConnections();
    return Promise.resolve();
  }
}

/**
 * Express with paths taken as the API spells them: /V1/STORES is no route. Set before anything reaches the router,
 * which reads the setting once, when it is made.
 */
function exactPaths(): Express {
  const app = express();
  app.set('case sensitive routing', true);
  return app;
}

/**
 * Node's request and response objects made with Express's prototypes from the start. Express gives each request
 * its methods by changing the prototype of the objects Node made (`Object.setPrototypeOf` in `app.handle`), which V8
 * can only do by giving each of them a new hidden class: then every property read on a request or a response, in
 * Express, Nest, passport and the service alike, misses the caches the code was optimised with, and Express alone
 * cost four times its own work (docs/performance.md). Made with that prototype, they keep their class: Express finds
 * the prototype in place and changes nothing.
 */
function expressPrototypes(app: Express): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  function Request(this: IncomingMessage, ...args: unknown[]): void {
    Reflect.apply(IncomingMessage, this, args);
  }
  Request.prototype = app.request;
  function Response(this: ServerResponse, ...args: unknown[]): void {
    Reflect.apply(ServerResponse, this, args);
  }
  Response.prototype = app.response;
  return {
    IncomingMessage: Request as unknown as typeof IncomingMessage,
    ServerResponse: Response as unknown as typeof ServerResponse,
  };
}

const openConnections = (server: Server): Promise<number> =>
  new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));

/**
 * One client must not hold every socket (and file descriptor) the process has, idle or sending slowly, and starve
 * the others: past `max` open connections from one address, a new one is closed as soon as it is accepted. An IPv6
 * client is its /64 network, which one subscriber holds whole (`connectionKey`).
 * Behind a proxy every client arrives from the proxy's address, so the cap there is for the proxy to set.
 * Each time an address reaches the cap one line says so (not one per connection refused, which a flood would make
 * millions of), and the address is named again only after it has gone below the cap.
 */
function capConnectionsPerAddress(server: Server, max: number, log: Logger | null): void {
  const open = new Map<string, number>();
  const atCap = new Set<string>();
  server.on('connection', (socket: Socket) => {
    // Missing only when the client is already gone.
    const address = socket.remoteAddress === undefined ? undefined : connectionKey(socket.remoteAddress);
    const count = address === undefined ? max : (open.get(address) ?? 0);
    if (address === undefined || count >= max) {
      socket.destroy();
      if (address !== undefined && !atCap.has(address)) {
        atCap.add(address);
        log?.warn({ address, max }, 'connections refused: this address holds MAX_CONNECTIONS_PER_ADDRESS open connections');
      }
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
      if (left < max) atCap.delete(address);
    });
  });
}

/** How often connections past their deadline for a request head are looked for: the most a deadline is overrun. */
const HEAD_DEADLINE_CHECK_MS = 100;

/**
 * Every open connection holds a file descriptor, and a process out of them can accept no client and open nothing
 * else, the database included. So the process holds at most `max` connections, from however many addresses; and a
 * connection that has not sent a whole request head `headersTimeoutMs` after it connected is closed. Node's own
 * limit starts again at the first byte, so a connection sending its first byte late would get the whole time twice.
 * A connection that sent nothing is closed without a word (it asked for nothing: a flood of them writes and logs
 * nothing), one that sent part of a head gets the 408 Node would give.
 *
 * At the cap, a new connection takes the place of the oldest one still waiting for its request head rather than
 * being refused: a flood of connections that send nothing then turns over within the cap instead of holding it, and
 * a client that sends its request as it connects, as every real one does, gets in. To keep it out, a flood must open
 * `max` connections between its connecting and its request being read, a turn of the event loop. Only when every open
 * connection has sent a request (each is then bounded by the request and keep-alive timeouts) is a new one refused.
 *
 * Returns what the server calls with a request's socket once its head has arrived.
 */
function boundOpenConnections(server: Server, headersTimeoutMs: number, max: number, log: Logger | null): (socket: Socket) => void {
  const open = new Set<Socket>();
  /** Open connections yet to send a whole request head, oldest first, each with its deadline (`performance.now()`). */
  const awaitingHead = new Map<Socket, number>();
  let atCap = false;
  const forget = (socket: Socket): void => {
    open.delete(socket);
    awaitingHead.delete(socket);
  };
  /** Closes the oldest connection still waiting for its request head, if there is one. */
  const evictOldest = (): boolean => {
    const oldest = awaitingHead.keys().next();
    if (oldest.done) return false;
    forget(oldest.value);
    oldest.value.destroy();
    return true;
  };
  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return; // refused by the cap per address
    if (open.size >= max && !evictOldest()) {
      socket.destroy();
      return;
    }
    open.add(socket);
    awaitingHead.set(socket, performance.now() + headersTimeoutMs);
    if (open.size >= max && !atCap) {
      atCap = true;
      log?.warn({ max }, 'connections at MAX_CONNECTIONS: the oldest waiting for a request make room for new ones, others are refused');
    }
    socket.once('close', () => {
      forget(socket);
      if (open.size < max) atCap = false;
    });
  });
  // The map is in connection order, and every deadline is as far from its connection: the expired ones come first.
  const check = setInterval(() => {
    const now = performance.now();
    for (const [socket, deadline] of awaitingHead) {
      if (deadline > now) return;
      awaitingHead.delete(socket);
      if (socket.bytesRead === 0) socket.destroy();
      else refuse(socket, 'request_timeout', log);
    }
  }, HEAD_DEADLINE_CHECK_MS);
  check.unref();
  server.once('close', () => clearInterval(check));
  return (socket) => awaitingHead.delete(socket);
}

/** Descriptors left for everything but client connections: the database pool, Redis, log output, files. */
const RESERVED_DESCRIPTORS = 128;

/**
 * `MAX_CONNECTIONS`, lowered to fit under the process's limit of open files where that is known (Linux) and lower:
 * past it, accepting a connection fails for every client, and so does opening anything else.
 */
function connectionCap(configured: number, log: Logger | null): number {
  const limit = openFileLimit();
  if (limit === null || configured <= limit - RESERVED_DESCRIPTORS) return configured;
  const cap = Math.max(1, limit - RESERVED_DESCRIPTORS);
  log?.warn({ configured, openFileLimit: limit, cap }, 'MAX_CONNECTIONS lowered to fit under the limit of open files');
  return cap;
}

/** The process's limit of open files (after Node raised it to the hard limit), or `null` where it cannot be read. */
function openFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((text) => text.startsWith('Max open files'));
    const soft = Number(line?.split(/\s+/)[3]);
    return Number.isSafeInteger(soft) && soft > 0 ? soft : null;
  } catch {
    return null;
  }
}

/** What each refusal of the HTTP server tells the caller to do instead. */
const CLIENT_ERROR_DETAILS: Partial<Record<ProblemCode, string>> = {
  headers_too_large: 'The request line and headers are over 16 KiB: send shorter query parameters or fewer headers',
  request_timeout: 'The request took too long to arrive: send it again, at once and whole',
  malformed_request: 'The request is not valid HTTP/1.1',
};

/**
 * Requests Node refuses before Express sees them (too slow, headers too large, not HTTP) still get problem details,
 * with a Request-Id, like every other refusal. A connection that sent nothing (Node's header limit counts from the
 * connection until the first byte) asked for nothing, and is closed without an answer.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, log: Logger | null): void {
  if (error.code === 'ECONNRESET' || !socket.writable || (socket as Partial<Socket>).bytesRead === 0) {
    socket.destroy();
    return;
  }
  const code: ProblemCode =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'headers_too_large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'request_timeout'
        : 'malformed_request';
  refuse(socket, code, log);
}

/**
 * Answers `code`'s problem on the raw connection and closes it. Closed, not only ended: a client that does not close
 * its side in turn would hold the socket for ever.
 */
function refuse(socket: Duplex, code: ProblemCode, log: Logger | null): void {
  const problem = new ProblemError(code, CLIENT_ERROR_DETAILS[code]);
  // A request whose headers arrived but whose body did not in time is Express's already: its answer keeps its
  // Request-Id, and the request log's line for it (written when the socket closes) its status.
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse & { req?: { id?: unknown } } })._httpMessage;
  const requestId = typeof pending?.req?.id === 'string' ? pending.req.id : randomUUID();
  if (pending && !pending.headersSent) pending.statusCode = problem.status;
  // Otherwise no line would say it happened.
  else log?.info({ req: { id: requestId }, res: { statusCode: problem.status } }, `request refused: ${code}`);
  const body = JSON.stringify(problemBody(problem, requestId));
  socket.end(
    `HTTP/1.1 ${problem.status} ${PROBLEMS[code].title}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Request-Id: ${requestId}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}
