import { Injectable } from '@nestjs/common';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';
import { isId } from '../common/http/ids.js';
import { sha256 } from '../common/crypto/sha256.js';

/**
 * Forms that must act once however often the browser sends them: a reload of the page a form's answer left in the
 * address bar, or Back then Forward, posts it again. Each rendering of such a form carries a new id (`form_id`); the
 * first request with it claims the id for the account, in the idempotency keys' table (24 hours), and every later
 * one is told the form was sent already. Nothing of the answer is kept: a new key's secret is shown once, as ever.
 * A form posted without an id (not by a browser, which always sends what the page holds) acts every time, as the
 * API does without an `Idempotency-Key`.
 */
@Injectable()
export class SubmittedForms {
  constructor(private readonly keys: IdempotencyKeysRepository) {}

  /**
   * Runs `act` unless this account sent this form before; `null` when it had. A form whose action failed can be sent
   * again.
   */
  async once<T>(accountId: string, formId: string, act: () => Promise<T>): Promise<T | null> {
    if (!isId(formId)) return act();
    const credential = `console-form:${accountId}`;
    const key = sha256(formId);
    if (!(await this.keys.claim(credential, key, key))) return null;
    let result: T;
    try {
      result = await act();
    } catch (error) {
      await this.keys.release(credential, key);
      throw error;
    }
    // Marked as answered, so that the claim is never taken for one a crash abandoned.
    await this.keys.answer(credential, key, Buffer.alloc(0));
    return result;
  }
}
