import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** The store's digests of shoppers' ids, in the caller's transaction, one per id in order. */
type DigestAll = (manager: EntityManager, storeId: string, refs: readonly string[]) => Promise<Buffer[]>;

/** What a module does, in the erasure's transaction, to the rows naming an erased shopper: her digest replaced. */
type Erasure = (manager: EntityManager, storeId: string, digest: Buffer, replacement: Buffer) => Promise<void>;

/**
 * How learning digests a shopper's id (`shopper_ref`) that an import of past orders names: exactly as her sessions are
 * digested, under the store's key, which the fit module keeps and lends here when it starts (learning cannot import fit,
 * which imports it). So an imported line teaches the very shopper her next sessions name.
 */
@Injectable()
export class ShopperDigests {
  private digestAll: DigestAll | null = null;
  private readonly erasures: Erasure[] = [];

  register(digestAll: DigestAll): void {
    this.digestAll = digestAll;
  }

  /** Registers what a module does when a shopper is erased (events' purchases, experiments' exposures). */
  onErasure(step: Erasure): void {
    this.erasures.push(step);
  }

  /**
   * Replaces the erased shopper's digest wherever a module keeps it, by one random value, in the caller's transaction:
   * her purchases and exposures still count where they counted (an experiment's arms keep their units), but nothing
   * links them to her id any more, nor to her next visit.
   */
  async erase(manager: EntityManager, storeId: string, digest: Buffer): Promise<void> {
    const replacement = randomBytes(digest.length);
    for (const step of this.erasures) await step(manager, storeId, digest, replacement);
  }

  /** The digests of `refs` in the store (its key is created on first use, as a session naming a shopper does). */
  of(manager: EntityManager, storeId: string, refs: readonly string[]): Promise<Buffer[]> {
    if (this.digestAll === null) throw new Error('no shopper digest registered: the fit module lends it when it starts');
    return refs.length ? this.digestAll(manager, storeId, refs) : Promise.resolve([]);
  }
}
