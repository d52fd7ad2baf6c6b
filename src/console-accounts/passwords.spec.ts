import { describe, expect, it } from '@jest/globals';
import { hashPassword, verifyPassword } from './passwords.js';

describe('console passwords', () => {
  it('verifies the password it hashed and nothing else', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(stored).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapl', stored)).resolves.toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same password twice')).not.toBe(await hashPassword('same password twice'));
  });

  it('treats composed and decomposed accents as the same password', async () => {
    const stored = await hashPassword('Ma\u0301laga beach house');
    await expect(verifyPassword('M\u00e1laga beach house', stored)).resolves.toBe(true);
  });

  it('never matches a malformed stored hash', async () => {
    for (const stored of ['', 'plain', 'scrypt$1$2$3$$', 'bcrypt$x$y$z$a$b', 'scrypt$x$8$5$c2FsdA==$aGFzaA==']) {
      await expect(verifyPassword('anything at all', stored)).resolves.toBe(false);
    }
  });
});
