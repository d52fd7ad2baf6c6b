import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { redactSecrets } from '../../common/http/redact.js';
import type { ProblemError } from '../../common/problems/problem-error.js';
import type { ProblemObserver } from '../../common/problems/problem-observer.js';

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
export class RecentRefusals implements ProblemObserver {
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

  /**
   * Told by the error filter of each problem it answers: a 4xx of `/v1/stores/…` whose store the access guard resolved
   * (so the caller's key was admitted for that store) is kept with its code and first message.
   */
  answered(request: Request, problem: ProblemError): void {
    const store = request.store;
    if (problem.status >= 500 || !store || !request.path.startsWith('/v1/stores/')) return;
    const [first] = problem.errors ?? [];
    const message = first ? `${first.field ? `${first.field}: ` : ''}${first.message}` : (problem.detail ?? '');
    this.record(store.id, {
      at: new Date(),
      method: request.method,
      route: (request.baseUrl ?? '') + String((request.route as { path?: unknown } | undefined)?.path ?? ''),
      status: problem.status,
      code: problem.code,
      message: redactSecrets(message).slice(0, 300),
      requestId: String(request.id ?? ''),
    });
  }

  /** Newest first. */
  of(storeId: string): readonly Refusal[] {
    return this.byStore.get(storeId) ?? [];
  }
}
