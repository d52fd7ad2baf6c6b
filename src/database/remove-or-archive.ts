import type { EntityManager, EntityTarget, FindOptionsWhere } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Removal } from '../common/http/removal.js';

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
