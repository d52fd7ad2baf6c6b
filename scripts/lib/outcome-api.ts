/**
 * The HTTP client of `npm run eval:outcomes`: every call goes through the service's public API, as a store's backend
 * makes it, and answers its status, its body and how long it took, so that refusals can be counted rather than stop
 * the run.
 */
import { Agent, request } from 'node:http';

export interface Answer<T = unknown> {
  readonly status: number;
  readonly body: T;
  /** Milliseconds from sending the request to the last byte of the answer. */
  readonly ms: number;
}

/** A call the run cannot go on without that failed. */
export class CallFailed extends Error {
  override readonly name = 'CallFailed';
}

/** Keep-alive connections, fewer than the server's idle timeout keeps open. */
const agent = new Agent({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: 64, timeout: 60_000 });

export class OutcomeApi {
  constructor(
    private readonly baseUrl: string,
    private readonly secret: string,
  ) {}

  as(secret: string): OutcomeApi {
    return new OutcomeApi(this.baseUrl, secret);
  }

  /** The call's answer, whatever its status. */
  call<T = unknown>(method: string, path: string, body?: object): Promise<Answer<T>> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const url = new URL(path, this.baseUrl);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent,
          headers: {
            Authorization: `Bearer ${this.secret}`,
            ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}),
          },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (chunk: Buffer) => parts.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text.length ? JSON.parse(text) : null;
            } catch {
              // a non-JSON answer is kept as text
            }
            resolve({ status: res.statusCode ?? 0, body: parsed as T, ms: performance.now() - started });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The call's body; any status but 2xx stops the run with the service's answer. */
  async ok<T = unknown>(method: string, path: string, body?: object): Promise<T> {
    const answer = await this.call<T>(method, path, body);
    if (answer.status < 200 || answer.status >= 300) {
      throw new CallFailed(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 600)}`);
    }
    return answer.body;
  }

  post<T = unknown>(path: string, body: object): Promise<T> {
    return this.ok<T>('POST', path, body);
  }
}

/** Closes the kept-alive connections, so the process can end. */
export const closeConnections = () => agent.destroy();
