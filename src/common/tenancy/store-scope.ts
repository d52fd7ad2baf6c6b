import {
  type EntityManager,
  type EntityTarget,
  type FindOptionsSelect,
  type FindOptionsWhere,
  type ObjectLiteral,
  Raw,
  type SelectQueryBuilder,
} from 'typeorm';
import { isId } from '../http/ids.js';
import { ProblemError } from '../problems/problem-error.js';

/** The store a request acts in, as the access guard resolved it (the stores module's `Store` is one). */
interface StoreRef {
  readonly id: string;
}

/** A row that belongs to one store. */
interface StoreOwnedRow extends ObjectLiteral {
  id: string;
  storeId: string;
}

/**
 * The row's store, compared behind an InitPlan so that the row is found by its id whatever the statistics say of the
 * store (src/database/statements.ts, `prepared`).
 */
const inStore = (store: StoreRef) => Raw((column) => `${column} = (SELECT CAST(:storeId AS uuid))`, { storeId: store.id });

/**
 * Reads of a store's data go through these, given the store the access guard resolved for the caller: a row of
 * another store is simply not found, whatever id is asked for.
 */
export async function findInStore<E extends StoreOwnedRow>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  store: StoreRef,
  id: unknown,
  what: string,
  options: { lock?: boolean } = {},
): Promise<E> {
  const row = await findInStoreIfPresent(manager, entity, store, id, options);
  if (!row) throw ProblemError.notFound(what);
  return row;
}

/** As `findInStore`, for work whose row may be gone (a shop's notification): `null` instead of a 404. */
export function findInStoreIfPresent<E extends StoreOwnedRow>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  store: StoreRef,
  id: unknown,
  options: { lock?: boolean } = {},
): Promise<E | null> {
  if (!isId(id)) return Promise.resolve(null);
  return manager.findOne(entity, {
    where: { id, storeId: inStore(store) } as FindOptionsWhere<E>,
    ...(options.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
}

/** The id of a row of the store matching `where` (a unique key other than the id, such as an `external_id`), or null. */
export async function idInStore<E extends StoreOwnedRow>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  store: StoreRef,
  where: FindOptionsWhere<E>,
): Promise<string | null> {
  const row = await manager.findOne(entity, {
    where: { ...where, storeId: inStore(store) } as FindOptionsWhere<E>,
    select: { id: true } as FindOptionsSelect<E>,
  });
  return row?.id ?? null;
}

/**
 * A row named in a request body: a missing one is a 400 on that field, not a 404 of the route. The row is locked
 * `FOR KEY SHARE` until the transaction ends, so a concurrent delete (which locks it `FOR UPDATE` and then checks what
 * refers to it) either waits and sees the new reference, or wins and this read finds nothing: never a broken foreign
 * key. Call it inside a transaction.
 */
export async function findReference<E extends StoreOwnedRow>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  store: StoreRef,
  id: string,
  field: string,
): Promise<E> {
  const row = isId(id)
    ? await manager.findOne(entity, {
        where: { id, storeId: inStore(store) } as FindOptionsWhere<E>,
        lock: { mode: 'for_key_share' },
      })
    : null;
  if (!row) throw ProblemError.field(field, 'not_found', `${field} names nothing in this store`);
  return row;
}

/** A query over one store's rows of `entity`. */
export function queryInStore<E extends StoreOwnedRow>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  alias: string,
  store: StoreRef,
): SelectQueryBuilder<E> {
  return manager.createQueryBuilder(entity, alias).where(`${alias}.store_id = :storeId`, { storeId: store.id });
}
