import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, In, type Repository } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { type NoticeOutcome, PlatformNotice, type NoticeState } from './platform.entities.js';

/** A notification as a job processes it: its body too. */
interface NoticeToProcess {
  readonly id: string;
  readonly store_id: string;
  readonly topic: string;
  readonly state: NoticeState;
  readonly payload: unknown;
}

/** The notifications of connected shops (`platform_webhooks`). */
@Injectable()
export class PlatformNoticesRepository {
  constructor(@InjectRepository(PlatformNotice) private readonly notices: Repository<PlatformNotice>) {}

  /** Keeps a notification for the store, once per delivery id: the new row's id, or null when it was delivered before. */
  async insert(
    manager: EntityManager,
    notice: {
      storeId: string;
      shop: string;
      deliveryId: string;
      topic: string;
      payload: unknown;
      state: NoticeState;
      outcome: NoticeOutcome | null;
    },
  ): Promise<string | null> {
    const rows = (await manager.query(
      `INSERT INTO platform_webhooks (id, store_id, shop, delivery_id, topic, received_at, payload, state, outcome, processed_at)
       VALUES ($1, $2, $3, $4, $5, now(), $6, $7, $8, CASE WHEN $7 = 'queued' THEN NULL ELSE now() END)
       ON CONFLICT (store_id, delivery_id) DO NOTHING
       RETURNING id`,
      [newId(), notice.storeId, notice.shop, notice.deliveryId, notice.topic, JSON.stringify(notice.payload), notice.state, notice.outcome],
    )) as Array<{ id: string }>;
    return rows[0]?.id ?? null;
  }

  async toProcess(id: string): Promise<NoticeToProcess | null> {
    const rows = (await this.notices.query(`SELECT id, store_id, topic, state, payload FROM platform_webhooks WHERE id = $1`, [
      id,
    ])) as NoticeToProcess[];
    return rows[0] ?? null;
  }

  /** Records how processing ended, and forgets the body: what it said is in the events and the outcome now. */
  async settle(id: string, state: NoticeState, outcome: NoticeOutcome): Promise<void> {
    await this.notices.query(`UPDATE platform_webhooks SET state = $2, outcome = $3, payload = NULL, processed_at = now() WHERE id = $1`, [
      id,
      state,
      outcome,
    ]);
  }

  /** The job's last attempt failed: the notification waits, with its body, for a retry from the console. */
  async markDead(id: string, outcome: NoticeOutcome): Promise<void> {
    await this.notices.query(`UPDATE platform_webhooks SET state = 'dead_letter', outcome = $2 WHERE id = $1 AND state = 'queued'`, [
      id,
      outcome,
    ]);
  }

  /** Back to the queue, for a retry of its dead-lettered job. */
  async requeue(storeId: string, id: string): Promise<void> {
    await this.notices.query(
      `UPDATE platform_webhooks SET state = 'queued', outcome = NULL WHERE id = $1 AND store_id = $2 AND state = 'dead_letter'`,
      [id, storeId],
    );
  }

  async byIds(storeId: string, ids: readonly string[]): Promise<Map<string, PlatformNotice>> {
    if (!ids.length) return new Map();
    const rows = await this.notices.find({ where: { storeId, id: In([...ids]) } });
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** The store's latest notifications, newest first. */
  recent(storeId: string, limit: number): Promise<PlatformNotice[]> {
    return this.notices.find({ where: { storeId }, order: { receivedAt: 'DESC', id: 'DESC' }, take: limit });
  }

  /** Forgets every notification of the store (the shop asked for its data to be erased). */
  async deleteOfStore(manager: EntityManager, storeId: string): Promise<void> {
    await manager.query(`DELETE FROM platform_webhooks WHERE store_id = $1`, [storeId]);
  }
}
