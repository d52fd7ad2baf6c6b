import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/http/ids.js';
import type { Page, PageQuery } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import type { Removal } from '../common/http/removal.js';
import type { Store } from '../stores/store.entity.js';
import { type CreateQuestionnaireRequest, QuestionnaireResponse, type UpdateQuestionnaireRequest } from './dto/questionnaire.dto.js';
import type { Question, Questionnaire } from './fit.entities.js';
import { Transactions } from '../database/transactions.js';
import { QuestionnairesRepository } from './questionnaires.repository.js';
import { SessionsRepository } from './sessions.repository.js';
import { StoresService } from '../stores/stores.service.js';

@Injectable()
export class QuestionnairesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly questionnaires: QuestionnairesRepository,
    private readonly sessions: SessionsRepository,
    private readonly stores: StoresService,
  ) {}

  async create(store: Store, request: CreateQuestionnaireRequest): Promise<QuestionnaireResponse> {
    const id = newId();
    await this.transactions.run(async (manager) => {
      if (request.default) await this.clearDefault(manager, store, id);
      const questions = normalised(request.questions);
      await this.questionnaires.insert(manager, {
        id,
        merchantId: store.merchantId,
        storeId: store.id,
        name: request.name,
        version: 1,
        questions,
        isDefault: request.default ?? false,
        archivedAt: null,
      });
      await this.questionnaires.insertVersion(manager, {
        questionnaireId: id,
        version: 1,
        name: request.name,
        questions,
      });
    });
    return this.get(store, id);
  }

  list(store: Store, page: PageQuery): Promise<Page<QuestionnaireResponse>> {
    return this.questionnaires.list(store, page, (q) => QuestionnaireResponse.from(q));
  }

  async get(store: Store, id: string, version?: number): Promise<QuestionnaireResponse> {
    const questionnaire = await this.questionnaires.get(store, id);
    if (version === undefined) return QuestionnaireResponse.from(questionnaire);
    const past = await this.questionnaires.getVersion(questionnaire.id, version);
    if (!past) throw ProblemError.notFound('questionnaire version');
    return QuestionnaireResponse.from(questionnaire, past);
  }

  /** A change of name or questions makes a new version; sessions keep the version they started with. */
  async update(store: Store, id: string, request: UpdateQuestionnaireRequest): Promise<QuestionnaireResponse> {
    await this.transactions.run(async (manager) => {
      const questionnaire = await this.questionnaires.lock(manager, store, id);
      const changes: Partial<Questionnaire> = {};
      if (request.default !== undefined && request.default !== questionnaire.isDefault) {
        if (request.default && questionnaire.archivedAt) {
          throw ProblemError.field('default', 'archived', 'an archived questionnaire cannot be the default');
        }
        if (request.default) await this.clearDefault(manager, store, questionnaire.id);
        changes.isDefault = request.default;
      }
      const name = request.name ?? questionnaire.name;
      const questions = request.questions ? normalised(request.questions) : questionnaire.questions;
      if (name !== questionnaire.name || JSON.stringify(questions) !== JSON.stringify(normalised(questionnaire.questions))) {
        const version = questionnaire.version + 1;
        Object.assign(changes, { name, questions, version });
        await this.questionnaires.insertVersion(manager, { questionnaireId: questionnaire.id, version, name, questions });
      }
      if (Object.keys(changes).length) await this.questionnaires.update(manager, questionnaire.id, changes);
    });
    return this.get(store, id);
  }

  /** Archived (and no longer the default) when sessions used it; otherwise deleted with its versions. */
  async delete(store: Store, id: string): Promise<Removal<QuestionnaireResponse>> {
    return this.transactions.run(async (manager) => {
      const questionnaire = await this.questionnaires.lock(manager, store, id);
      const referred = await this.sessions.referToQuestionnaire(manager, questionnaire.id);
      return this.questionnaires.removeOrArchive(manager, questionnaire, referred, (q) => QuestionnaireResponse.from(q), {
        isDefault: false,
      });
    });
  }

  /** A store has at most one default questionnaire: changes of the default are serialised by the store's lock. */
  private async clearDefault(manager: EntityManager, store: Store, except: string): Promise<void> {
    await this.stores.lock(manager, store);
    await this.questionnaires.clearDefault(manager, store, except);
  }
}

/** Questions in one canonical shape, so that comparing versions compares content, not key order. */
function normalised(questions: readonly Question[]): Question[] {
  return questions.map((question) => ({ key: question.key, required: question.required }));
}
