import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import type { Removal } from '../common/http/removal.js';
import { removeOrArchive } from '../database/remove-or-archive.js';
import { findInStore, findReference, queryInStore } from '../common/tenancy/store-scope.js';
import type { Store } from '../stores/store.entity.js';
import { SizeChart } from './catalog.entities.js';

/** The store's size charts. */
@Injectable()
export class SizeChartsRepository {
  constructor(@InjectRepository(SizeChart) private readonly charts: Repository<SizeChart>) {}

  async insert(chart: QueryDeepPartialEntity<SizeChart>): Promise<void> {
    await this.charts.insert(chart);
  }

  list<T>(store: Store, page: PageQuery, present: (chart: SizeChart) => T): Promise<Page<T>> {
    return paginate(queryInStore(this.charts.manager, SizeChart, 'chart', store), page, present);
  }

  /** The store's chart `id`; 404 otherwise. */
  get(store: Store, id: string): Promise<SizeChart> {
    return findInStore(this.charts.manager, SizeChart, store, id, 'size chart');
  }

  /** The chart `id`, which the caller knows exists (a product's chart). */
  getById(id: string): Promise<SizeChart> {
    return this.charts.findOneByOrFail({ id });
  }

  /** The store's chart `id`, locked `FOR UPDATE` until the transaction ends; 404 otherwise. */
  lock(manager: EntityManager, store: Store, id: string): Promise<SizeChart> {
    return findInStore(manager, SizeChart, store, id, 'size chart', { lock: true });
  }

  /** A chart named in a request body's `field` (locked `FOR KEY SHARE`; 400 on that field when missing). */
  reference(manager: EntityManager, store: Store, id: string, field: string): Promise<SizeChart> {
    return findReference(manager, SizeChart, store, id, field);
  }

  /**
   * The chart `id` (which exists), locked `FOR KEY SHARE` so that a concurrent chart edit dropping a label waits for
   * the caller's write (and then refuses), or wins. For `requireChartLabel`.
   */
  lockLabels(manager: EntityManager, id: string): Promise<SizeChart> {
    return manager.findOneOrFail(SizeChart, { where: { id }, lock: { mode: 'for_key_share' } });
  }

  async update(manager: EntityManager, id: string, changes: Partial<SizeChart>): Promise<void> {
    await manager.update(SizeChart, { id }, changes);
  }

  /** Deletes the chart (locked by the caller), or archives it when `referred`. */
  removeOrArchive<T>(manager: EntityManager, chart: SizeChart, referred: boolean, present: (chart: SizeChart) => T): Promise<Removal<T>> {
    return removeOrArchive(manager, SizeChart, chart, referred, present);
  }
}
