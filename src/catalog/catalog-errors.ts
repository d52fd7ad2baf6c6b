import { violatedConstraint } from '../database/database-errors.js';
import { ProblemError } from '../common/problems/problem-error.js';

/** Unique external ids: a second product or variant with the same platform id in a store is a 409 `duplicate`. */
const DUPLICATES: Readonly<Record<string, string>> = {
  products_external_id_key: 'Another product of this store has this external_id',
  variants_external_id_key: 'Another variant of this store has this external_id',
};

/** Runs a write, turning a broken unique external id into a 409 `duplicate`. */
export async function refusingDuplicates<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const violated = violatedConstraint(error);
    const message = violated && DUPLICATES[violated.constraint];
    if (message) throw new ProblemError('duplicate', message, [{ field: 'external_id', code: 'duplicate', message }]);
    throw error;
  }
}

export const inUse = (detail: string) => new ProblemError('in_use', detail);
