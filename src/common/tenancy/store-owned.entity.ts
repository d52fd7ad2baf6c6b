import { Column, CreateDateColumn, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Columns of every row a store owns: its id, its merchant and store (every query is scoped by them), its times. */
export abstract class StoreOwned {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  @Column({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
