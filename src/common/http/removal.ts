import type { Response } from 'express';
import type { EntityManager, EntityTarget, FindOptionsWhere } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';

/** What a delete did: removed the row, or archived it because something still refers to it. */
export type Removal<T> = { removed: true } | { removed: false; archived: T };

interface Archivable {
  id: string;
  archivedAt: Date | null;
}

/**
 * The delete of a row others may refer to: deleted when nothing does, otherwise archived (once; `alsoOnArchive` are
 * further changes made then) and returned as `present` shows it. `row` must be locked by the caller's transaction.
 */
export async function removeOrArchive<E extends Archivable, T>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  row: E,
  referred: boolean,
  present: (row: E) => T,
  alsoOnArchive: QueryDeepPartialEntity<E> = {},
): Promise<Removal<T>> {
  const where = { id: row.id } as FindOptionsWhere<E>;
  if (!referred) {
    await manager.delete(entity, where);
    return { removed: true };
  }
  if (!row.archivedAt) {
    await manager.update(entity, where, { ...alsoOnArchive, archivedAt: new Date() } as QueryDeepPartialEntity<E>);
  }
  return { removed: false, archived: present(await manager.findOneByOrFail(entity, where)) };
}

/** DELETE answers 204 when the row is gone, 200 with the archived record when something still refers to it. */
export function answerRemoval<T>(response: Response, removal: Removal<T>): T | undefined {
  if (removal.removed) {
    response.status(204);
    return undefined;
  }
  response.status(200);
  return removal.archived;
}
