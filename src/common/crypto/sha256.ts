import { hash } from 'node:crypto';

/** The SHA-256 digest of a text (UTF-8) or of bytes, in one call (no Hash object, as `createHash` makes). */
export function sha256(data: string | Buffer): Buffer {
  return hash('sha256', data, 'buffer');
}
