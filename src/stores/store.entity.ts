import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export const UNIT_SYSTEMS = ['metric', 'imperial'] as const;
/** The ISO 4217 codes of currencies in use, as the runtime's ICU data lists them: not XXX or XTS, nor metals (XAU). */
export const CURRENCIES: readonly string[] = Intl.supportedValuesOf('currency');
export type UnitSystem = (typeof UNIT_SYSTEMS)[number];
export const PLATFORMS = ['shopify'] as const;
export type Platform = (typeof PLATFORMS)[number];

@Entity({ name: 'stores' })
@Index('stores_merchant_id_idx', ['merchantId', 'id'])
export class Store {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'text', name: 'unit_system' })
  unitSystem: UnitSystem;

  @Column({ type: 'text', nullable: true })
  platform: Platform | null;

  @Column({ type: 'text', name: 'platform_shop', nullable: true })
  platformShop: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}

/** The entities of stores, registered by its module. */
export const STORES_ENTITIES = [Store];
