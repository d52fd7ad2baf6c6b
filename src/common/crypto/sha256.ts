import { createHash } from 'node:crypto';

/** The SHA-256 digest of a text (UTF-8) or of bytes. */
export function sha256(data: string | Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
