import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * Random bytes for new ids, drawn from a pool filled 256 ids at a time: uuid asks the system for 16 bytes per id, a
 * call into OpenSSL each, which cost 2% of recording an event. Given its bytes, uuid leaves the order of the ids of
 * one millisecond to the caller, so the state below keeps it as uuid's own does (RFC 9562, 6.2, method 1: a counter
 * seeded at random each millisecond, counting up within it).
 */
const pool = new Uint8Array(16 * 256);
let taken = pool.length;
let msecs = -Infinity;
let seq = 0;

/** New ids are UUIDv7: opaque to clients, ordered by creation (within a process) for cursor pagination. */
export function newId(): string {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const random = pool.subarray(taken, (taken += 16));
  const now = Date.now();
  if (now > msecs) {
    msecs = now;
    seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
  } else {
    seq = (seq + 1) | 0;
    if (seq === 0) msecs++;
  }
  return v7({ random, msecs, seq });
}

/** Lower case only: ids are opaque strings, and the service issues them in lower case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Ids in paths are checked before they reach a query: anything that is not an id simply does not exist. */
export const isId = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
