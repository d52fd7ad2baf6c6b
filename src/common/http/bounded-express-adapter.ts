import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, type Server, type ServerOptions, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Duplex } from 'node:stream';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { PROBLEMS, type ProblemCode } from '../problems/problem-catalog.js';
import { problemBody } from '../problems/problem-details.filter.js';
import { ProblemError } from '../problems/problem-error.js';

interface ServerLimits {
  /** A client must finish sending the request's headers within this time… */
  readonly headersTimeoutMs: number;
  /** …and the whole request within this one. */
  readonly requestTimeoutMs: number;
  /** Open connections one client address may hold at once; 0 turns the cap off. */
  readonly maxConnectionsPerAddress: number;
  /** On shutdown, how long requests in flight may take to finish. */
  readonly shutdownGraceMs: number;
}

/**
 * Express, on a Node HTTP server built with time limits: a client sending its request slowly (a byte every few
 * seconds) is cut off with 408 instead of holding a socket forever. Node enforces these limits when it checks its
 * connections, so the check runs every second rather than Node's default 30.
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
    // A request that arrives while the service is shutting down closes its connection with its answer, so that
    // keep-alive clients move to another instance.
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      if (this.shuttingDown) response.setHeader('Connection', 'close');
    });
    if (this.limits.maxConnectionsPerAddress > 0) capConnectionsPerAddress(server, this.limits.maxConnectionsPerAddress, this.log);
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
    // Each connection ends after its next answer, or when it has been idle for the keep-alive timeout (5 s): closing an
    // idle one sooner races with a request its client may be sending on it.
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
 * the others: past `max` open connections from one address, a new one is closed as soon as it is accepted.
 * Behind a proxy every client arrives from the proxy's address, so the cap there is for the proxy to set.
 * Each time an address reaches the cap one line says so (not one per connection refused, which a flood would make
 * millions of), and the address is named again only after it has gone below the cap.
 */
function capConnectionsPerAddress(server: Server, max: number, log: Logger | null): void {
  const open = new Map<string, number>();
  const atCap = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress; // missing only when the client is already gone
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

/** What each refusal of the HTTP server tells the caller to do instead. */
const CLIENT_ERROR_DETAILS: Partial<Record<ProblemCode, string>> = {
  headers_too_large: 'The request line and headers are over 16 KiB: send shorter query parameters or fewer headers',
  request_timeout: 'The request took too long to arrive: send it again, at once and whole',
  malformed_request: 'The request is not valid HTTP/1.1',
};

/**
 * Requests Node refuses before Express sees them (too slow, headers too large, not HTTP) still get problem details,
 * with a Request-Id, like every other refusal.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, log: Logger | null): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const code: ProblemCode =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'headers_too_large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'request_timeout'
        : 'malformed_request';
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
  );
}
