import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { PlatformConnection, PlatformOAuthState } from './platform.entities.js';

const STATE_LIFETIME_MINUTES = 10;

/** A pending connection, as its state is taken. */
interface TakenStateRow {
  store_id: string;
  shop: string;
  /** The state has not expired. */
  live: boolean;
}

interface NewConnection {
  readonly storeId: string;
  readonly shop: string;
  /** As granted by the platform, comma-separated. */
  readonly scopes: string;
  /** The access token, sealed (common/crypto/seal.ts). */
  readonly tokenCiphertext: Buffer;
  /** The console account that connected the store. */
  readonly connectedBy: string;
}

/**
 * The queries of platform connections and of the OAuth states of the pending ones. Methods that may run inside a
 * transaction take its `manager` first.
 */
@Injectable()
export class PlatformConnectionsRepository {
  constructor(
    @InjectRepository(PlatformConnection) private readonly connections: Repository<PlatformConnection>,
    @InjectRepository(PlatformOAuthState) private readonly states: Repository<PlatformOAuthState>,
  ) {}

  findByStore(storeId: string): Promise<PlatformConnection | null> {
    return this.connections.findOneBy({ storeId });
  }

  /** The store's shop and its sealed access token, or null when the store is not connected. */
  async sealedToken(storeId: string): Promise<{ shop: string; sealed: Buffer } | null> {
    const rows = (await this.connections.query('SELECT shop, token_ciphertext FROM platform_connections WHERE store_id = $1', [
      storeId,
    ])) as Array<{
      shop: string;
      token_ciphertext: Uint8Array;
    }>;
    return rows[0] ? { shop: rows[0].shop, sealed: Buffer.from(rows[0].token_ciphertext) } : null;
  }

  /** The stores connected to `shop` (each connection is one the shop approved). */
  async storesOfShop(shop: string): Promise<string[]> {
    const rows = (await this.connections.query('SELECT store_id FROM platform_connections WHERE shop = $1 ORDER BY store_id', [
      shop,
    ])) as Array<{
      store_id: string;
    }>;
    return rows.map((row) => row.store_id);
  }

  /** Every connected store, whatever its shop. */
  async connectedStores(): Promise<string[]> {
    const rows = (await this.connections.query('SELECT store_id FROM platform_connections ORDER BY store_id')) as Array<{
      store_id: string;
    }>;
    return rows.map((row) => row.store_id);
  }

  /** Sweeps the states that have expired. */
  async deleteExpiredStates(): Promise<void> {
    await this.states.createQueryBuilder().delete().where('expires_at <= now()').execute();
  }

  /** Records a pending connection, for ten minutes. */
  async insertState(state: {
    readonly stateDigest: string;
    readonly sessionId: string;
    readonly storeId: string;
    readonly shop: string;
  }): Promise<void> {
    await this.states
      .createQueryBuilder()
      .insert()
      .values({
        stateDigest: state.stateDigest,
        sessionId: state.sessionId,
        storeId: state.storeId,
        shop: state.shop,
        expiresAt: () => `now() + interval '${STATE_LIFETIME_MINUTES} minutes'`,
      })
      .execute();
  }

  /** Deletes the state of this digest and session and returns it, expired or not; undefined when there is none. */
  async takeState(stateDigest: string, sessionId: string): Promise<TakenStateRow | undefined> {
    const [rows] = (await this.states.query(
      `DELETE FROM platform_oauth_states WHERE state_digest = $1 AND session_id = $2
       RETURNING store_id, shop, expires_at > now() AS live`,
      [stateDigest, sessionId],
    )) as [TakenStateRow[], number];
    return rows[0];
  }

  /** Stores the store's connection, replacing the one it had. */
  async upsert(manager: EntityManager, connection: NewConnection): Promise<void> {
    await manager.query(
      `INSERT INTO platform_connections (store_id, shop, scopes, token_ciphertext, connected_at, connected_by)
         VALUES ($1, $2, $3, $4, now(), $5)
         ON CONFLICT (store_id) DO UPDATE
           SET shop = EXCLUDED.shop, scopes = EXCLUDED.scopes, token_ciphertext = EXCLUDED.token_ciphertext,
               connected_at = EXCLUDED.connected_at, connected_by = EXCLUDED.connected_by`,
      [connection.storeId, connection.shop, connection.scopes, connection.tokenCiphertext, connection.connectedBy],
    );
  }

  async delete(manager: EntityManager, storeId: string): Promise<void> {
    await manager.getRepository(PlatformConnection).delete({ storeId });
  }
}
