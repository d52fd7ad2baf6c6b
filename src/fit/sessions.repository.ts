import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { ChartRow } from '../catalog/catalog-lookups.service.js';
import { isId } from '../common/http/ids.js';
import { paginate, type Page } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { findInStore, queryInStore } from '../common/tenancy/store-scope.js';
import { prepared, run } from '../database/statements.js';
import type { Store } from '../stores/store.entity.js';
import type { SessionListQuery } from './dto/session.dto.js';
import type { FitAdjustment, ZoneWeights } from './engine/types.js';
import { FitSession, type StoredDecision, type StoredRecommendation } from './fit.entities.js';

/** A new session, as `start` builds it. */
const INSERT_SESSION = prepared<never>(
  'sessions.insert',
  `INSERT INTO sessions (id, merchant_id, store_id, created_at, updated_at, product_id, size_chart_id, questionnaire_id,
                         questionnaire_version, questions, state, outcome, answers, recommendation, decision,
                         recommended_at, completed_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13::jsonb, $14::jsonb, $15::jsonb, $16, $17)`,
);

/** A session's answers and their recommendation (`recordRecommendation`). */
const RECORD_RECOMMENDATION = prepared<never>(
  'sessions.record-recommendation',
  `UPDATE sessions SET state = 'recommended', answers = $2::jsonb, recommendation = $3::jsonb, recommended_at = $4,
                      updated_at = $4
    WHERE id = $1`,
);

/** A session's decision (`recordDecision`). */
const RECORD_DECISION = prepared<never>(
  'sessions.record-decision',
  `UPDATE sessions SET state = 'completed', outcome = $2, decision = $3::jsonb, completed_at = $4, updated_at = $4
    WHERE id = $1`,
);

/**
 * The store's fit sessions. `lockForAnswers` joins the session's chart, product and product type by table name: the
 * one read across a module's wall (docs/architecture.md), kept for its single round trip.
 */
@Injectable()
export class SessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, session: FitSession): Promise<void> {
    const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
    const at = (date: Date | null) => date?.toISOString() ?? null;
    await run(manager, INSERT_SESSION, [
      session.id,
      session.merchantId,
      session.storeId,
      at(session.createdAt),
      at(session.updatedAt),
      session.productId,
      session.sizeChartId,
      session.questionnaireId,
      session.questionnaireVersion,
      JSON.stringify(session.questions),
      session.state,
      session.outcome,
      json(session.answers),
      json(session.recommendation),
      json(session.decision),
      at(session.recommendedAt),
      at(session.completedAt),
    ]);
  }

  list<T>(store: Store, query: SessionListQuery, present: (session: FitSession) => T): Promise<Page<T>> {
    const sessions = queryInStore(this.dataSource.manager, FitSession, 'session', store);
    if (query.state) sessions.andWhere('session.state = :state', { state: query.state });
    if (query.product_id) sessions.andWhere('session.product_id = :productId', { productId: query.product_id });
    return paginate(sessions, query, present);
  }

  /** The store's session `id`; 404 otherwise. */
  get(store: Store, id: string): Promise<FitSession> {
    return findInStore(this.dataSource.manager, FitSession, store, id, 'session');
  }

  /** The store's session `id`, locked `FOR UPDATE` until the transaction ends; 404 otherwise. */
  lock(manager: EntityManager, store: Store, id: string): Promise<FitSession> {
    return findInStore(manager, FitSession, store, id, 'session', { lock: true });
  }

  /**
   * The session, locked for the rest of the transaction, with what the engine needs besides the answers (its chart, its
   * product's fit adjustment and its product type's weights), in one round trip.
   */
  async lockForAnswers(
    manager: EntityManager,
    store: Store,
    id: string,
  ): Promise<{ session: FitSession; chart: ChartRow; zoneWeights: ZoneWeights; fitAdjustment: FitAdjustment }> {
    const found = isId(id)
      ? await manager
          .createQueryBuilder(FitSession, 'session')
          .innerJoin('size_charts', 'chart', 'chart.id = session.size_chart_id')
          .innerJoin('products', 'product', 'product.id = session.product_id')
          .innerJoin('product_types', 'type', 'type.id = product.product_type_id')
          .addSelect('chart.measurement_type', 'chart_measurement_type')
          .addSelect('chart.ease_cm', 'chart_ease_cm')
          .addSelect('chart.unit', 'chart_unit')
          .addSelect('chart.sizes', 'chart_sizes')
          .addSelect('type.zone_weights', 'type_zone_weights')
          .addSelect('product.fit_adjustment', 'product_fit_adjustment')
          .where('session.id = :id AND session.store_id = :storeId', { id, storeId: store.id })
          .setLock('pessimistic_write', undefined, ['session'])
          .getRawAndEntities<{
            chart_measurement_type: ChartRow['measurementType'];
            chart_ease_cm: number | null;
            chart_unit: ChartRow['unit'];
            chart_sizes: ChartRow['sizes'];
            type_zone_weights: ZoneWeights;
            product_fit_adjustment: FitAdjustment;
          }>()
      : undefined;
    const [session, row] = [found?.entities[0], found?.raw[0]];
    if (!session || !row) throw ProblemError.notFound('session');
    return {
      session,
      chart: {
        measurementType: row.chart_measurement_type,
        easeCm: row.chart_ease_cm,
        unit: row.chart_unit,
        sizes: row.chart_sizes,
      },
      zoneWeights: row.type_zone_weights,
      fitAdjustment: row.product_fit_adjustment,
    };
  }

  /** The session (locked by the caller) is `recommended`: its answers and their recommendation, made `at`. */
  async recordRecommendation(
    manager: EntityManager,
    id: string,
    answers: object,
    recommendation: StoredRecommendation,
    at: Date,
  ): Promise<void> {
    await run(manager, RECORD_RECOMMENDATION, [id, JSON.stringify(answers), JSON.stringify(recommendation), at.toISOString()]);
  }

  /** The session (locked by the caller) is `completed` with its decision, made `at`. */
  async recordDecision(manager: EntityManager, id: string, decision: StoredDecision, at: Date): Promise<void> {
    await run(manager, RECORD_DECISION, [id, decision.outcome, JSON.stringify(decision), at.toISOString()]);
  }

  /** Whether sessions were opened on the product. */
  referToProduct(manager: EntityManager, productId: string): Promise<boolean> {
    return manager.existsBy(FitSession, { productId });
  }

  /** Whether sessions were opened on the size chart. */
  referToSizeChart(manager: EntityManager, sizeChartId: string): Promise<boolean> {
    return manager.existsBy(FitSession, { sizeChartId });
  }

  /** Whether sessions used the questionnaire. */
  referToQuestionnaire(manager: EntityManager, questionnaireId: string): Promise<boolean> {
    return manager.existsBy(FitSession, { questionnaireId });
  }
}
