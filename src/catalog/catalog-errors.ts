import type { EntityManager } from 'typeorm';
import { violatedConstraint } from '../database/database-errors.js';
import { ProblemError } from '../common/problems/problem-error.js';
import type { Store } from '../stores/store.entity.js';
import { Product, Variant } from './catalog.entities.js';

type Row = 'product' | 'variant';

/** Unique external ids per store: the constraint of each table. */
const CONSTRAINTS: Readonly<Record<string, Row>> = {
  products_external_id_key: 'product',
  variants_external_id_key: 'variant',
};

/** 409 `duplicate` on `external_id`, naming the row that holds it when it is known. */
function duplicate(row: Row, existingId?: string): ProblemError {
  const message = `Another ${row} of this store has this external_id${existingId ? `: ${existingId}` : ''}`;
  return new ProblemError('duplicate', message, [{ field: 'external_id', code: 'duplicate', message }], undefined, existingId);
}

/**
 * Refuses an external id that another product (variant) of the store already has, with a 409 `duplicate` whose
 * `existing_id` names that one, so an integrator retrying a create can carry on with it. `self` is the row being
 * updated, which keeps its own id. Reads in the caller's transaction; the unique constraint stays the backstop when
 * two requests race (`refusingDuplicates`).
 */
export async function refuseTakenExternalId(
  manager: EntityManager,
  row: Row,
  store: Store,
  externalId: string | null | undefined,
  self?: string,
): Promise<void> {
  if (externalId === undefined || externalId === null) return;
  const where = { storeId: store.id, externalId };
  const existing =
    row === 'product'
      ? await manager.findOne(Product, { where, select: { id: true } })
      : await manager.findOne(Variant, { where, select: { id: true } });
  if (existing && existing.id !== self) throw duplicate(row, existing.id);
}

/** Runs a write, turning a broken unique external id (a race past `refuseTakenExternalId`) into a 409 `duplicate`. */
export async function refusingDuplicates<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const violated = violatedConstraint(error);
    const row = violated && CONSTRAINTS[violated.constraint];
    if (row) throw duplicate(row);
    throw error;
  }
}

export const inUse = (detail: string) => new ProblemError('in_use', detail);
