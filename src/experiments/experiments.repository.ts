import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { findInStore, queryInStore } from '../common/tenancy/store-scope.js';
import { prepared, run } from '../database/statements.js';
import type { Store } from '../stores/store.entity.js';
import { type Arm, Experiment } from './experiment.entity.js';

/** Whether experiment `e` covers the product `product` of type `type` (SQL expressions): all products, its list, or its types. */
const covers = (product: string, type: string) =>
  `((e.product_ids IS NULL AND e.product_type_ids IS NULL) OR ${product} = ANY (e.product_ids) OR ${type} = ANY (e.product_type_ids))`;

/** The running experiment of the store that covers a product, with its salt; and whether the product is the store's. */
const RUNNING_FOR_PRODUCT = prepared<{ product: boolean; id: string | null; arms: Arm[] | null; salt: Buffer | null }>(
  'experiments.running-for-product',
  `WITH p AS (SELECT id, product_type_id FROM catalog_products WHERE store_id = (SELECT $1::uuid) AND id = $2::uuid)
   SELECT EXISTS (SELECT FROM p) AS product, e.id, e.arms, e.salt
     FROM (SELECT 1) AS one
     LEFT JOIN experiments e
       ON e.store_id = (SELECT $1::uuid) AND e.state = 'running' AND EXISTS (SELECT FROM p)
      AND ${covers('$2::uuid', '(SELECT product_type_id FROM p)')}
    LIMIT 1`,
);

/**
 * The running experiment covering a product (given its type), with the arm the unit was exposed to, if she was: the
 * one read a session's start adds (`experiments_running`, then the exposure's primary key).
 */
const RUNNING_FOR_UNIT = prepared<{ id: string; arms: Arm[]; salt: Buffer; exposed_arm: string | null }>(
  'experiments.running-for-unit',
  `SELECT e.id, e.arms, e.salt, x.arm AS exposed_arm
     FROM experiments e
     LEFT JOIN experiment_exposures x ON x.experiment_id = e.id AND x.unit_digest = $4
    WHERE e.store_id = $1 AND e.state = 'running'
      AND ${covers('$2::uuid', '$3::uuid')}
    LIMIT 1`,
);

/** A unit's first exposure to an experiment (a later one changes nothing). */
const EXPOSE = prepared<never>(
  'experiments.expose',
  `INSERT INTO experiment_exposures (experiment_id, store_id, unit_digest, arm, exposed_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (experiment_id, unit_digest) DO NOTHING`,
);

/** The store's experiments and their exposures. */
@Injectable()
export class ExperimentsRepository {
  constructor(@InjectRepository(Experiment) private readonly experiments: Repository<Experiment>) {}

  async insert(manager: EntityManager, experiment: Experiment): Promise<void> {
    await manager.insert(Experiment, experiment);
  }

  list<T>(store: Store, page: PageQuery, present: (experiment: Experiment) => T): Promise<Page<T>> {
    return paginate(queryInStore(this.experiments.manager, Experiment, 'experiment', store), page, present);
  }

  /** The store's experiment `id`; 404 otherwise. */
  get(store: Store, id: string): Promise<Experiment> {
    return findInStore(this.experiments.manager, Experiment, store, id, 'experiment');
  }

  /** The store's experiment `id`, locked `FOR UPDATE` until the transaction ends; 404 otherwise. */
  lock(manager: EntityManager, store: Store, id: string): Promise<Experiment> {
    return findInStore(manager, Experiment, store, id, 'experiment', { lock: true });
  }

  async update(manager: EntityManager, id: string, changes: Partial<Experiment>): Promise<void> {
    await manager.update(Experiment, { id }, changes);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(Experiment, { id });
  }

  /** The places in `ids` of those that are not products of the store. */
  async missingProducts(manager: EntityManager, store: Store, ids: readonly string[]): Promise<number[]> {
    if (!ids.length) return [];
    const rows: { at: number }[] = await manager.query(
      `SELECT t.at - 1 AS at FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, at)
        WHERE NOT EXISTS (SELECT FROM catalog_products c WHERE c.store_id = $1 AND c.id = t.id)`,
      [store.id, ids],
    );
    return rows.map((row) => Number(row.at));
  }

  /** The places in `ids` of those that are not product types of the store. */
  async missingProductTypes(manager: EntityManager, store: Store, ids: readonly string[]): Promise<number[]> {
    if (!ids.length) return [];
    const rows: { at: number }[] = await manager.query(
      `SELECT t.at - 1 AS at FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, at)
        WHERE NOT EXISTS (SELECT FROM catalog_product_types c WHERE c.store_id = $1 AND c.id = t.id)`,
      [store.id, ids],
    );
    return rows.map((row) => Number(row.at));
  }

  /**
   * A running experiment of the store, other than `experiment`, that covers one of its products: both cover all, one
   * covers all, their lists or types meet, or a listed product is of the other's types.
   */
  async overlapping(manager: EntityManager, experiment: Experiment): Promise<string | null> {
    const rows: { id: string }[] = await manager.query(
      `SELECT o.id FROM experiments o
        WHERE o.store_id = $1 AND o.state = 'running' AND o.id <> $2
          AND (($3::uuid[] IS NULL AND $4::uuid[] IS NULL) OR (o.product_ids IS NULL AND o.product_type_ids IS NULL)
               OR o.product_ids && $3::uuid[] OR o.product_type_ids && $4::uuid[]
               OR EXISTS (SELECT FROM catalog_products p
                           WHERE p.store_id = $1 AND p.id = ANY (o.product_ids) AND p.product_type_id = ANY ($4::uuid[]))
               OR EXISTS (SELECT FROM catalog_products p
                           WHERE p.store_id = $1 AND p.id = ANY ($3::uuid[]) AND p.product_type_id = ANY (o.product_type_ids)))
        LIMIT 1`,
      [experiment.storeId, experiment.id, experiment.productIds, experiment.productTypeIds],
    );
    return rows[0]?.id ?? null;
  }

  /** The running experiment covering the product, if any; `product` false when the product is not the store's. */
  async runningFor(
    store: Store,
    productId: string,
  ): Promise<{ product: boolean; experiment: { id: string; arms: Arm[]; salt: Buffer } | null }> {
    const [row] = await run(this.experiments.manager, RUNNING_FOR_PRODUCT, [store.id, productId]);
    const experiment = row.id === null ? null : { id: row.id, arms: row.arms as Arm[], salt: row.salt as Buffer };
    return { product: row.product, experiment };
  }

  /** The running experiment covering a product, and the arm the unit was exposed to in it (null: not yet). */
  async runningForUnit(
    manager: EntityManager,
    storeId: string,
    product: { id: string; productTypeId: string },
    unit: Buffer,
  ): Promise<{ id: string; arms: Arm[]; salt: Buffer; exposedArm: string | null } | null> {
    const [row] = await run(manager, RUNNING_FOR_UNIT, [storeId, product.id, product.productTypeId, unit]);
    return row ? { id: row.id, arms: row.arms, salt: row.salt, exposedArm: row.exposed_arm } : null;
  }

  /** Records a unit's exposure, once: its first time stays. Atomic on its own, or part of the caller's transaction. */
  async expose(on: EntityManager, storeId: string, experimentId: string, unit: Buffer, arm: string, at: Date): Promise<void> {
    await run(on, EXPOSE, [experimentId, storeId, unit, arm, at.toISOString()]);
  }

  /** The exposures of a shopper's digest name `replacement` instead (her erasure). */
  async replaceUnit(manager: EntityManager, storeId: string, digest: Buffer, replacement: Buffer): Promise<void> {
    await manager.query(`UPDATE experiment_exposures SET unit_digest = $3 WHERE store_id = $1 AND unit_digest = $2`, [
      storeId,
      digest,
      replacement,
    ]);
  }

  /** Exposed units per experiment of the store, for those of `ids` (an experiment with none is left out). */
  async exposedUnits(store: Store, ids: readonly string[]): Promise<Map<string, number>> {
    if (!ids.length) return new Map();
    const rows: { id: string; units: string }[] = await this.experiments.manager.query(
      `SELECT experiment_id AS id, count(*) AS units FROM experiment_exposures
        WHERE store_id = $1 AND experiment_id = ANY ($2::uuid[]) GROUP BY experiment_id`,
      [store.id, ids],
    );
    return new Map(rows.map((row) => [row.id, Number(row.units)]));
  }

  /** Units exposed a day in the store over the last 28 days: experiments' exposures, else shoppers of fit sessions. */
  async dailyUnits(store: Store, now: Date): Promise<number | null> {
    const since = new Date(now.getTime() - 28 * 86_400_000);
    const [row]: { exposed: string; shoppers: string }[] = await this.experiments.manager.query(
      `SELECT (SELECT count(*) FROM experiment_exposures WHERE store_id = $1 AND exposed_at >= $2) AS exposed,
              (SELECT count(DISTINCT coalesce(encode(shopper_digest, 'hex'), id::text)) FROM fit_sessions
                WHERE store_id = $1 AND created_at >= $2) AS shoppers`,
      [store.id, since],
    );
    const units = Number(row.exposed) || Number(row.shoppers);
    return units ? units / 28 : null;
  }
}
