import { violatedConstraint } from '../database/database-errors.js';
import { ProblemError } from '../common/problems/problem-error.js';

/** The catalog rows that carry an external id. */
export type ExternalIdRow = 'product' | 'variant';

/** Unique external ids per store: the constraint of each table. */
const CONSTRAINTS: Readonly<Record<string, ExternalIdRow>> = {
  products_external_id_key: 'product',
  variants_external_id_key: 'variant',
};

/** 409 `duplicate` on `external_id`, naming the row that holds it when it is known. */
export function duplicate(row: ExternalIdRow, existingId?: string): ProblemError {
  const message = `Another ${row} of this store has this external_id${existingId ? `: ${existingId}` : ''}`;
  return new ProblemError('duplicate', message, [{ field: 'external_id', code: 'duplicate', message }], undefined, existingId);
}

/**
 * Runs a write, turning a broken unique external id (a race past `ProductsRepository.refuseTakenExternalId`) into a 409
 * `duplicate`.
 */
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
