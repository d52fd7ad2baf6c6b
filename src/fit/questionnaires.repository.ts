import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, Not, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import type { Removal } from '../common/http/removal.js';
import { removeOrArchive } from '../database/remove-or-archive.js';
import { findInStore, findReference, queryInStore } from '../common/tenancy/store-scope.js';
import { prepared, run } from '../database/statements.js';
import type { Store } from '../stores/store.entity.js';
import { Questionnaire, QuestionnaireVersion } from './fit.entities.js';

/** What a new session copies of a questionnaire. */
export type QuestionnaireRef = Pick<Questionnaire, 'id' | 'version' | 'questions'>;

/** The store's default questionnaire unless archived, locked `FOR KEY SHARE` (`findDefault`). */
const LOCK_DEFAULT = prepared<QuestionnaireRef>(
  'questionnaires.lock-default',
  `SELECT id, version, questions FROM questionnaires
    WHERE store_id = $1 AND is_default AND archived_at IS NULL
      FOR KEY SHARE`,
);

/** The store's questionnaires and their versions. */
@Injectable()
export class QuestionnairesRepository {
  constructor(
    @InjectRepository(Questionnaire) private readonly questionnaires: Repository<Questionnaire>,
    @InjectRepository(QuestionnaireVersion) private readonly versions: Repository<QuestionnaireVersion>,
  ) {}

  async insert(manager: EntityManager, questionnaire: QueryDeepPartialEntity<Questionnaire>): Promise<void> {
    await manager.insert(Questionnaire, questionnaire);
  }

  async insertVersion(manager: EntityManager, version: QueryDeepPartialEntity<QuestionnaireVersion>): Promise<void> {
    await manager.insert(QuestionnaireVersion, version);
  }

  list<T>(store: Store, page: PageQuery, present: (questionnaire: Questionnaire) => T): Promise<Page<T>> {
    const query = queryInStore(this.questionnaires.manager, Questionnaire, 'questionnaire', store);
    return paginate(query, page, present);
  }

  /** The store's questionnaire `id`; 404 otherwise. */
  get(store: Store, id: string): Promise<Questionnaire> {
    return findInStore(this.questionnaires.manager, Questionnaire, store, id, 'questionnaire');
  }

  /** A past (or the current) version of the questionnaire, if it has that one. */
  getVersion(questionnaireId: string, version: number): Promise<QuestionnaireVersion | null> {
    return this.versions.findOneBy({ questionnaireId, version });
  }

  /** The store's questionnaire `id`, locked `FOR UPDATE` until the transaction ends; 404 otherwise. */
  lock(manager: EntityManager, store: Store, id: string): Promise<Questionnaire> {
    return findInStore(manager, Questionnaire, store, id, 'questionnaire', { lock: true });
  }

  /** A questionnaire named in a request body's `field` (locked `FOR KEY SHARE`; 400 on that field when missing). */
  reference(manager: EntityManager, store: Store, id: string, field: string): Promise<Questionnaire> {
    return findReference(manager, Questionnaire, store, id, field);
  }

  /** The store's default questionnaire unless archived (locked `FOR KEY SHARE`), or null. */
  async findDefault(manager: EntityManager, store: Store): Promise<QuestionnaireRef | null> {
    const [row] = await run(manager, LOCK_DEFAULT, [store.id]);
    return row ?? null;
  }

  async update(manager: EntityManager, id: string, changes: Partial<Questionnaire>): Promise<void> {
    await manager.update(Questionnaire, { id }, changes);
  }

  /** The store's default questionnaire, but `except`, made not default (the caller holds the store's lock). */
  async clearDefault(manager: EntityManager, store: Store, except: string): Promise<void> {
    await manager.update(Questionnaire, { storeId: store.id, isDefault: true, id: Not(except) }, { isDefault: false });
  }

  /** Deletes the questionnaire (locked by the caller) with its versions, or archives it when `referred`. */
  removeOrArchive<T>(
    manager: EntityManager,
    questionnaire: Questionnaire,
    referred: boolean,
    present: (questionnaire: Questionnaire) => T,
    alsoOnArchive: QueryDeepPartialEntity<Questionnaire> = {},
  ): Promise<Removal<T>> {
    return removeOrArchive(manager, Questionnaire, questionnaire, referred, present, alsoOnArchive);
  }
}
