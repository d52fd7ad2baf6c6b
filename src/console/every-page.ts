import type { Page } from '../common/http/pagination.js';

/** Every item of a paged list, for lists a store keeps short (its charts, its product types). */
export async function everyPage<T extends { id: string }>(read: (after?: string) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const page = await read(after);
    items.push(...page.data);
    if (!page.next_cursor) break;
    after = page.next_cursor;
  }
  return items;
}
