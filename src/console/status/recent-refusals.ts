import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** One refused API request of a store, as its status panel shows it. */
export interface Refusal {
  readonly at: Date;
  readonly method: string;
  /** The route's pattern (`/v1/stores/:store_id/events`), never the address as sent. */
  readonly route: string;
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly requestId: string;
}

/** How many refusals each store keeps, and how many stores are remembered (the least recently refused forgotten first). */
const PER_STORE = 20;
const STORES = 500;

/**
 * The last refused API requests of each store, kept in this instance's memory only (docs/decisions/005-seller-console.md,
 * "Status panel"): a request that a key of the store was admitted for, answered 4xx. Nothing is written to the database,
 * so a flood of bad requests costs no writes; a restart forgets them, and each instance shows its own.
 */
@Injectable()
export class RecentRefusals {
  private readonly byStore = new Map<string, Refusal[]>();
  readonly since = new Date();

  record(storeId: string, refusal: Refusal): void {
    const list = this.byStore.get(storeId) ?? [];
    this.byStore.delete(storeId);
    list.unshift(refusal);
    if (list.length > PER_STORE) list.length = PER_STORE;
    this.byStore.set(storeId, list);
    if (this.byStore.size > STORES) this.byStore.delete(this.byStore.keys().next().value as string);
  }

  /** Newest first. */
  of(storeId: string): readonly Refusal[] {
    return this.byStore.get(storeId) ?? [];
  }
}

/**
 * Watches the answers of `/v1/stores/…`: a problem (4xx) sent for a request whose store the access guard resolved (so
 * the caller's key was admitted for that store) is recorded with its code and first message.
 */
@Injectable()
export class RefusalRecorder implements NestMiddleware {
  constructor(private readonly refusals: RecentRefusals) {}

  use(request: Request, response: Response, next: NextFunction): void {
    if (request.path.startsWith('/v1/stores/')) {
      const send = response.send.bind(response);
      response.send = (body?: unknown) => {
        this.note(request, response, body);
        return send(body);
      };
    }
    next();
  }

  private note(request: Request, response: Response, body: unknown): void {
    const status = response.statusCode;
    const store = request.store;
    if (status < 400 || status >= 500 || !store || typeof body !== 'string') return;
    if (!/^application\/problem\+json/.test(String(response.getHeader('content-type') ?? ''))) return;
    let problem: { code?: unknown; detail?: unknown; errors?: Array<{ field?: unknown; message?: unknown }> };
    try {
      problem = JSON.parse(body) as typeof problem;
    } catch {
      return;
    }
    const first = problem.errors?.[0];
    const message =
      first && typeof first.message === 'string'
        ? `${typeof first.field === 'string' && first.field ? `${first.field}: ` : ''}${first.message}`
        : typeof problem.detail === 'string'
          ? problem.detail
          : '';
    this.refusals.record(store.id, {
      at: new Date(),
      method: request.method,
      route: (request.baseUrl ?? '') + String((request.route as { path?: unknown } | undefined)?.path ?? ''),
      status,
      code: typeof problem.code === 'string' ? problem.code : 'unknown',
      message: message.slice(0, 300),
      requestId: String(request.id ?? ''),
    });
  }
}
