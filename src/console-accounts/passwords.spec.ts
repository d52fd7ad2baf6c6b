import { describe, expect, it } from '@jest/globals';
import { hashPassword, verifyPassword } from './passwords.js';

describe('console passwords', () => {
  it('verifies the password it hashed and nothing else', async () => {
    const stored = await hashPassword('correct horse battery staple', 14);
    expect(stored).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(stored).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapl', stored)).resolves.toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same password twice', 10)).not.toBe(await hashPassword('same password twice', 10));
  });

  it('treats composed and decomposed accents as the same password', async () => {
    const stored = await hashPassword('Ma\u0301laga beach house', 10);
    await expect(verifyPassword('M\u00e1laga beach house', stored)).resolves.toBe(true);
  });

  it('verifies a hash made at another cost, by the parameters stored with it', async () => {
    const cheaper = await hashPassword('correct horse battery staple', 10);
    expect(cheaper).toMatch(/^scrypt\$1024\$8\$5\$/);
    await expect(verifyPassword('correct horse battery staple', cheaper)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapl', cheaper)).resolves.toBe(false);
  });

  it('never matches a malformed stored hash', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$1$2$3$$',
      'bcrypt$x$y$z$a$b',
      'scrypt$x$8$5$c2FsdA==$aGFzaA==',
      'scrypt$16777216$8$5$c2FsdA==$aGFzaA==',
    ]) {
      await expect(verifyPassword('anything at all', stored)).resolves.toBe(false);
    }
  });
});
