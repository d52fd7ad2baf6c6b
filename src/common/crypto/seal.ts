import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = Buffer.from('v1');
const IV_LENGTH = 12;
const TAG_LENGTH = 16;

/**
 * A secret at rest (a platform access token, an answer to replay): AES-256-GCM with a random 96-bit IV and `context`
 * as additional data (the store id, the idempotency key's digest), so a sealed value copied to another row does not
 * open. Layout: `v1 ‖ iv ‖ ciphertext ‖ tag`.
 */
export function seal(key: Buffer, context: string, text: string): Buffer {
  const iv = randomBytes(IV_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([VERSION, iv, ciphertext, cipher.getAuthTag()]);
}

/** The text a sealed value holds; throws when the key, the context or a single byte differs. */
export function unseal(key: Buffer, context: string, sealed: Buffer): string {
  if (sealed.length < VERSION.length + IV_LENGTH + TAG_LENGTH || !sealed.subarray(0, VERSION.length).equals(VERSION)) {
    throw new Error('not a sealed value');
  }
  const iv = sealed.subarray(VERSION.length, VERSION.length + IV_LENGTH);
  const tag = sealed.subarray(sealed.length - TAG_LENGTH);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([
    decipher.update(sealed.subarray(VERSION.length + IV_LENGTH, sealed.length - TAG_LENGTH)),
    decipher.final(),
  ]).toString('utf8');
}
