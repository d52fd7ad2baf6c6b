import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { WholeNumber } from '../validation/whole-number.js';

/** `?limit=`: how many items a list or a ranking answers. */
export class LimitQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, example: 50 })
  @IsOptional()
  @WholeNumber()
  @Max(100)
  @Min(1)
  @IsInt({ message: 'limit must be a whole number from 1 to 100' })
  limit?: number;
}

/** `?limit=&starting_after=` on every list. */
export class PageQuery extends LimitQuery {
  @ApiPropertyOptional({
    description: 'The id of the last item of the previous page (its `next_cursor`).',
    example: '0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b',
  })
  @IsOptional()
  @IsUUID('all', { message: 'starting_after must be an id from a previous page' })
  starting_after?: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Newest first, by id: ids are UUIDv7, so their order is their creation order and a cursor is just the last id seen.
 * `alias.id` must be the entity's primary key.
 */
export async function paginate<E extends ObjectLiteral & { id: string }, T>(
  query: SelectQueryBuilder<E>,
  page: PageQuery,
  present: (entity: E) => T,
): Promise<Page<T>> {
  const limit = page.limit ?? 20;
  const alias = query.alias;
  if (page.starting_after) query.andWhere(`${alias}.id < :cursor`, { cursor: page.starting_after });
  const rows = await query
    .orderBy(`${alias}.id`, 'DESC')
    .limit(limit + 1)
    .getMany();
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: items.map(present),
    has_more: hasMore,
    next_cursor: hasMore ? items[items.length - 1].id : null,
  };
}
