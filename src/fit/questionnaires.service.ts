import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, Not } from 'typeorm';
import { newId } from '../common/http/ids.js';
import { paginate, type Page, type PageQuery } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { findInStore, queryInStore } from '../common/tenancy/store-scope.js';
import { type Removal, removeOrArchive } from '../common/http/removal.js';
import type { Store } from '../stores/store.entity.js';
import { type CreateQuestionnaireRequest, QuestionnaireResponse, type UpdateQuestionnaireRequest } from './dto/questionnaire.dto.js';
import { FitSession, type Question, Questionnaire, QuestionnaireVersion } from './fit.entities.js';
import { transaction } from '../database/transactions.js';

@Injectable()
export class QuestionnairesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(store: Store, request: CreateQuestionnaireRequest): Promise<QuestionnaireResponse> {
    const id = newId();
    await transaction(this.dataSource, async (manager) => {
      if (request.default) await clearDefault(manager, store, id);
      const questions = normalised(request.questions);
      await manager.insert(Questionnaire, {
        id,
        merchantId: store.merchantId,
        storeId: store.id,
        name: request.name,
        version: 1,
        questions,
        isDefault: request.default ?? false,
        archivedAt: null,
      });
      await manager.insert(QuestionnaireVersion, {
        questionnaireId: id,
        version: 1,
        name: request.name,
        questions,
      });
    });
    return this.get(store, id);
  }

  list(store: Store, page: PageQuery): Promise<Page<QuestionnaireResponse>> {
    const query = queryInStore(this.dataSource.manager, Questionnaire, 'questionnaire', store);
    return paginate(query, page, (q) => QuestionnaireResponse.from(q));
  }

  async get(store: Store, id: string, version?: number): Promise<QuestionnaireResponse> {
    const manager = this.dataSource.manager;
    const questionnaire = await findInStore(manager, Questionnaire, store, id, 'questionnaire');
    if (version === undefined) return QuestionnaireResponse.from(questionnaire);
    const past = await manager.findOneBy(QuestionnaireVersion, { questionnaireId: questionnaire.id, version });
    if (!past) throw ProblemError.notFound('questionnaire version');
    return QuestionnaireResponse.from(questionnaire, past);
  }

  /** A change of name or questions makes a new version; sessions keep the version they started with. */
  async update(store: Store, id: string, request: UpdateQuestionnaireRequest): Promise<QuestionnaireResponse> {
    await transaction(this.dataSource, async (manager) => {
      const questionnaire = await findInStore(manager, Questionnaire, store, id, 'questionnaire', { lock: true });
      const changes: Partial<Questionnaire> = {};
      if (request.default !== undefined && request.default !== questionnaire.isDefault) {
        if (request.default && questionnaire.archivedAt) {
          throw ProblemError.field('default', 'archived', 'an archived questionnaire cannot be the default');
        }
        if (request.default) await clearDefault(manager, store, questionnaire.id);
        changes.isDefault = request.default;
      }
      const name = request.name ?? questionnaire.name;
      const questions = request.questions ? normalised(request.questions) : questionnaire.questions;
      if (name !== questionnaire.name || JSON.stringify(questions) !== JSON.stringify(normalised(questionnaire.questions))) {
        const version = questionnaire.version + 1;
        Object.assign(changes, { name, questions, version });
        await manager.insert(QuestionnaireVersion, { questionnaireId: questionnaire.id, version, name, questions });
      }
      if (Object.keys(changes).length) await manager.update(Questionnaire, { id: questionnaire.id }, changes);
    });
    return this.get(store, id);
  }

  /** Archived (and no longer the default) when sessions used it; otherwise deleted with its versions. */
  async delete(store: Store, id: string): Promise<Removal<QuestionnaireResponse>> {
    return transaction(this.dataSource, async (manager) => {
      const questionnaire = await findInStore(manager, Questionnaire, store, id, 'questionnaire', { lock: true });
      const referred = await manager.existsBy(FitSession, { questionnaireId: questionnaire.id });
      return removeOrArchive(manager, Questionnaire, questionnaire, referred, (q) => QuestionnaireResponse.from(q), {
        isDefault: false,
      });
    });
  }
}

/**
 * A store has at most one default questionnaire. Changes of the default are serialised per store by locking the store
 * row (`FOR NO KEY UPDATE`, which does not block writes that merely refer to the store).
 */
async function clearDefault(manager: EntityManager, store: Store, except: string): Promise<void> {
  await manager.query('SELECT 1 FROM stores WHERE id = $1 FOR NO KEY UPDATE', [store.id]);
  await manager.update(Questionnaire, { storeId: store.id, isDefault: true, id: Not(except) }, { isDefault: false });
}

/** Questions in one canonical shape, so that comparing versions compares content, not key order. */
function normalised(questions: readonly Question[]): Question[] {
  return questions.map((question) => ({ key: question.key, required: question.required }));
}
