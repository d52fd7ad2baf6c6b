import { v7 } from 'uuid';

/** New ids are UUIDv7: opaque to clients, ordered by creation for cursor pagination. */
export const newId = (): string => v7();

/** Lower case only: ids are opaque strings, and the service issues them in lower case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Ids in paths are checked before they reach a query: anything that is not an id simply does not exist. */
export const isId = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
