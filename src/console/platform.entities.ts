import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A connection started in the console and not yet completed: single use, ten minutes. */
@Entity({ name: 'platform_oauth_states' })
export class PlatformOAuthState {
  /** SHA-256 (hex) of the `state` sent to the platform. */
  @PrimaryColumn({ type: 'text', name: 'state_digest' })
  stateDigest: string;

  @Column({ type: 'uuid', name: 'session_id' })
  sessionId: string;

  @Column({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  shop: string;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt: Date;
}

/** A store's link to its shop on the platform. The access token is sealed (common/crypto/seal.ts) and never leaves. */
@Entity({ name: 'platform_connections' })
export class PlatformConnection {
  @PrimaryColumn({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  shop: string;

  /** As granted by the platform, comma-separated. */
  @Column({ type: 'text' })
  scopes: string;

  @Column({ type: 'bytea', name: 'token_ciphertext', select: false })
  tokenCiphertext: Buffer;

  @Column({ type: 'timestamptz', name: 'connected_at' })
  connectedAt: Date;

  @Column({ type: 'uuid', name: 'connected_by', nullable: true })
  connectedBy: string | null;
}

/** The entities of the console, registered by its module. */
export const CONSOLE_ENTITIES = [PlatformOAuthState, PlatformConnection];
