import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import type { ChartRow } from '../catalog/catalog-lookups.service.js';
import { isId } from '../common/http/ids.js';
import { paginate, type Page } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { findInStore, queryInStore } from '../common/tenancy/store-scope.js';
import { prepared, run } from '../database/statements.js';
import type { Store } from '../stores/store.entity.js';
import type { SessionListQuery } from './dto/session.dto.js';
import type { FitAdjustment, ZoneWeights } from '../sizing/types.js';
import { FitSession, type SessionTreatment, type StoredDecision, type StoredRecommendation } from './fit.entities.js';

const SESSION_COLUMNS = `s.id, s.merchant_id, s.store_id, s.created_at, s.updated_at, s.product_id, s.size_chart_id,
  s.questionnaire_id, s.questionnaire_version, s.questions, s.state, s.outcome, s.answers, s.recommendation, s.decision,
  s.recommended_at, s.completed_at`;

/** A session's row as `SESSION_COLUMNS` reads it. */
interface SessionRow {
  id: string;
  merchant_id: string;
  store_id: string;
  created_at: Date;
  updated_at: Date;
  product_id: string;
  size_chart_id: string;
  questionnaire_id: string | null;
  questionnaire_version: number | null;
  questions: FitSession['questions'];
  state: FitSession['state'];
  outcome: FitSession['outcome'];
  answers: object | null;
  recommendation: StoredRecommendation | null;
  decision: StoredDecision | null;
  recommended_at: Date | null;
  completed_at: Date | null;
}

const toSession = (row: SessionRow): FitSession => ({
  id: row.id,
  merchantId: row.merchant_id,
  storeId: row.store_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  productId: row.product_id,
  sizeChartId: row.size_chart_id,
  questionnaireId: row.questionnaire_id,
  questionnaireVersion: row.questionnaire_version,
  questions: row.questions,
  state: row.state,
  outcome: row.outcome,
  answers: row.answers,
  recommendation: row.recommendation,
  decision: row.decision,
  recommendedAt: row.recommended_at,
  completedAt: row.completed_at,
});

/** The store's session, locked `FOR UPDATE` (`lock`). */
const LOCK_SESSION = prepared<SessionRow>(
  'sessions.lock',
  `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = $1 AND s.store_id = (SELECT $2::uuid) FOR UPDATE`,
);

/** The store's session, locked `FOR UPDATE`, with its chart, its product's adjustment and its type's weights. */
const LOCK_FOR_ANSWERS = prepared<
  SessionRow & {
    chart_measurement_type: ChartRow['measurementType'];
    chart_ease_cm: number | null;
    chart_unit: ChartRow['unit'];
    chart_sizes: ChartRow['sizes'];
    type_zone_weights: ZoneWeights;
    product_fit_adjustment: FitAdjustment;
    product_type_id: string;
    shopper_digest: Buffer | null;
    treatment: SessionTreatment | null;
  }
>(
  'sessions.lock-for-answers',
  `SELECT ${SESSION_COLUMNS}, c.measurement_type AS chart_measurement_type, c.ease_cm AS chart_ease_cm,
          c.unit AS chart_unit, c.sizes AS chart_sizes, t.zone_weights AS type_zone_weights,
          p.fit_adjustment AS product_fit_adjustment, p.product_type_id, s.shopper_digest, s.treatment
     FROM sessions s
     JOIN catalog_size_charts c ON c.id = s.size_chart_id
     JOIN catalog_products p ON p.id = s.product_id
     JOIN catalog_product_types t ON t.id = p.product_type_id
    WHERE s.id = $1 AND s.store_id = (SELECT $2::uuid)
      FOR UPDATE OF s`,
);

/** A new session, as `start` builds it. */
const INSERT_SESSION = prepared<never>(
  'sessions.insert',
  `INSERT INTO sessions (id, merchant_id, store_id, created_at, updated_at, product_id, size_chart_id, questionnaire_id,
                         questionnaire_version, questions, state, outcome, answers, recommendation, decision,
                         recommended_at, completed_at, shopper_digest, experiment_id, treatment)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13::jsonb, $14::jsonb, $15::jsonb, $16, $17, $18, $19, $20)`,
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
  constructor(@InjectRepository(FitSession) private readonly sessions: Repository<FitSession>) {}

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
      session.shopperDigest ?? null,
      session.experimentId ?? null,
      session.treatment ?? null,
    ]);
  }

  list<T>(store: Store, query: SessionListQuery, present: (session: FitSession) => T): Promise<Page<T>> {
    const sessions = queryInStore(this.sessions.manager, FitSession, 'session', store);
    if (query.state) sessions.andWhere('session.state = :state', { state: query.state });
    if (query.product_id) sessions.andWhere('session.product_id = :productId', { productId: query.product_id });
    return paginate(sessions, query, present);
  }

  /** The store's session `id`; 404 otherwise. */
  get(store: Store, id: string): Promise<FitSession> {
    return findInStore(this.sessions.manager, FitSession, store, id, 'session');
  }

  /** The store's session `id`, locked `FOR UPDATE` until the transaction ends; 404 otherwise. */
  async lock(manager: EntityManager, store: Store, id: string): Promise<FitSession> {
    const [row] = isId(id) ? await run(manager, LOCK_SESSION, [id, store.id]) : [];
    if (!row) throw ProblemError.notFound('session');
    return toSession(row);
  }

  /**
   * The session, locked for the rest of the transaction, with what the engine needs besides the answers (its chart, its
   * product's fit adjustment and type, and its product type's weights), in one round trip.
   */
  async lockForAnswers(
    manager: EntityManager,
    store: Store,
    id: string,
  ): Promise<{
    session: FitSession;
    chart: ChartRow;
    zoneWeights: ZoneWeights;
    fitAdjustment: FitAdjustment;
    productTypeId: string;
    shopperDigest: Buffer | null;
    /** Its shopper's treatment in a running experiment (null: none). */
    treatment: SessionTreatment | null;
  }> {
    const [row] = isId(id) ? await run(manager, LOCK_FOR_ANSWERS, [id, store.id]) : [];
    if (!row) throw ProblemError.notFound('session');
    const session = toSession(row);
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
      productTypeId: row.product_type_id,
      shopperDigest: row.shopper_digest,
      treatment: row.treatment,
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
