import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { ExpressAdapter } from '@nestjs/platform-express';
import { PROBLEMS, type ProblemCode } from '../problems/problem-catalog.js';
import { problemBody } from '../problems/problem-details.filter.js';
import { ProblemError } from '../problems/problem.error.js';

export interface ServerLimits {
  /** A client must finish sending the request's headers within this time… */
  readonly headersTimeoutMs: number;
  /** …and the whole request within this one. */
  readonly requestTimeoutMs: number;
}

/**
 * Express, on a Node HTTP server built with time limits: a client sending its request slowly (a byte every few
 * seconds) is cut off with 408 instead of holding a socket forever. Node enforces these limits when it checks its
 * connections, so the check runs every second rather than Node's default 30.
 */
export class BoundedExpressAdapter extends ExpressAdapter {
  constructor(private readonly limits: ServerLimits) {
    super();
  }

  override initHttpServer(): void {
    const server = createServer(
      {
        headersTimeout: this.limits.headersTimeoutMs,
        requestTimeout: this.limits.requestTimeoutMs,
        connectionsCheckingInterval: 1_000,
      },
      this.getInstance(),
    );
    server.on('clientError', answerClientError);
    this.httpServer = server;
  }
}

/**
 * Requests Node refuses before Express sees them (too slow, headers too large, not HTTP) still get problem details,
 * with a Request-Id, like every other refusal.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
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
  const requestId = randomUUID();
  const problem = new ProblemError(code);
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
