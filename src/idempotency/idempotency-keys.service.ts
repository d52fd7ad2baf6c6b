import { Injectable } from '@nestjs/common';
import { IdempotencyKeysRepository, type HeldKey } from './idempotency-keys.repository.js';

/**
 * The `Idempotency-Key`s of each credential, as the `IdempotentCreates` interceptor uses them: the interceptor is built
 * in the module of each route marked `@Idempotent()`, which reaches the keys through this service.
 */
@Injectable()
export class IdempotencyKeysService {
  constructor(private readonly keys: IdempotencyKeysRepository) {}

  /** Claims the key for this request; false when the credential holds it already (see the repository). */
  claim(credential: string, keyDigest: Buffer, requestDigest: Buffer, subjectDigest: Buffer | null): Promise<boolean> {
    return this.keys.claim(credential, keyDigest, requestDigest, subjectDigest);
  }

  /** The claimed key: its request's digest and, once answered, the sealed answer. */
  find(credential: string, keyDigest: Buffer): Promise<HeldKey | null> {
    return this.keys.find(credential, keyDigest);
  }

  /** Records the answer of a claimed key. */
  answer(credential: string, keyDigest: Buffer, sealedAnswer: Buffer): Promise<void> {
    return this.keys.answer(credential, keyDigest, sealedAnswer);
  }

  /** Gives a claimed key up (its request failed): the next request with it runs afresh. */
  release(credential: string, keyDigest: Buffer): Promise<void> {
    return this.keys.release(credential, keyDigest);
  }
}
