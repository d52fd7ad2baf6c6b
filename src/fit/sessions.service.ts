import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { IdempotentRequests } from '../idempotency/idempotent-routes.js';
import { CatalogLookups, type ChartRow } from '../catalog/catalog-lookups.service.js';
import { newId } from '../common/http/ids.js';
import type { Page } from '../common/http/pagination.js';
import { ProblemError } from '../common/problems/problem-error.js';
import { Transactions } from '../database/transactions.js';
import { LearningService } from '../learning/learning.service.js';
import { SessionEventsService } from '../events/session-events.service.js';
import type { Store } from '../stores/store.entity.js';
import { readAnswers, toCentimetres } from './answers.js';
import type { AnswersRequest, CreateSessionRequest, DecisionRequest, SessionListQuery } from './dto/session.dto.js';
import { SessionResponse } from './dto/session.dto.js';
import { recommend } from '../sizing/recommend.js';
import type { AnswerLink, LinkKind } from '../sizing/answer-link.js';
import { learnedOffset, NO_EVIDENCE } from '../sizing/learning.js';
import {
  type Chart,
  type FitAdjustment,
  InsufficientAnswersError,
  type LearnedShift,
  type Recommendation,
  ZONES,
} from '../sizing/types.js';
import { ADJUSTMENT_STEPS } from '../sizing/usual-size.js';
import { sizeVerdicts, STORE_KEY } from '../sizing/verdicts.js';
import type { FitSession, Question, SessionTreatment, StoredDecision, StoredOutcome, StoredRecommendation } from './fit.entities.js';
import { QuestionnairesRepository, type QuestionnaireRef } from './questionnaires.repository.js';
import { DEFAULT_QUESTIONS } from './questions.js';
import { SessionsRepository } from './sessions.repository.js';
import { ShoppersRepository } from './shoppers.repository.js';
import { ShopperDigests } from '../learning/shopper-digests.js';
import { ExperimentsService } from '../experiments/experiments.service.js';

/**
 * The life of a fit session: started → recommended (answers; answering again replaces the recommendation) →
 * completed (a decision). Each move locks the session row, checks the state, and writes the change together with the
 * events it causes in one transaction.
 */
@Injectable()
export class SessionsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly sessions: SessionsRepository,
    private readonly questionnaires: QuestionnairesRepository,
    private readonly sessionEvents: SessionEventsService,
    private readonly catalog: CatalogLookups,
    private readonly evidence: LearningService,
    private readonly shoppers: ShoppersRepository,
    private readonly idempotentRequests: IdempotentRequests,
    private readonly shopperDigests: ShopperDigests,
    private readonly experiments: ExperimentsService,
  ) {}

  /**
   * Erases a shopper's link to the store's sessions, what her outcomes said, and the kept requests that named her
   * (`Idempotency-Key`) with their answers: her later sessions start afresh, and so does a retry of one of them. Her
   * purchases and experiments' exposures keep counting, under a digest no id leads to (`ShopperDigests.erase`).
   */
  async forgetShopper(store: Store, ref: string): Promise<void> {
    await this.transactions.run(async (manager) => {
      const digest = await this.shoppers.digest(manager, store.id, ref);
      // unlinked first: an outcome may hold her session's row while it waits for her lock (forgetShopper)
      await this.shoppers.unlink(manager, store.id, digest);
      await this.evidence.forgetShopper(manager, store.id, digest);
      await this.idempotentRequests.forget(manager, digest);
      await this.shopperDigests.erase(manager, store.id, digest);
    });
  }

  async start(store: Store, request: CreateSessionRequest): Promise<SessionResponse> {
    const started = await this.transactions.run(async (manager): Promise<SessionResponse | typeof HOLDOUT> => {
      const product = await this.catalog.product(manager, store, request.product_id, 'product_id');
      if (product.archivedAt) throw ProblemError.field('product_id', 'archived', 'this product is archived');
      const questionnaire = await this.questionnaireFor(manager, store, request.questionnaire_id);
      const questions = questionnaire?.questions ?? DEFAULT_QUESTIONS;
      this.refuseUnanswerable(questions);
      const shopperDigest = request.shopper_ref === undefined ? null : await this.shoppers.digest(manager, store.id, request.shopper_ref);
      const now = new Date();
      // her arm in a running experiment on the product: a holdout gets no size help; chart_only, the chart's answer alone
      const experiment = shopperDigest && (await this.experiments.armOfSession(manager, store.id, product, shopperDigest, now));
      // refused once committed: her exposure, if this is her first, counts
      if (experiment && experiment.arm.treatment === 'no_size_help') return HOLDOUT;
      const session: FitSession = {
        id: newId(),
        merchantId: store.merchantId,
        storeId: store.id,
        productId: product.id,
        sizeChartId: product.sizeChartId,
        questionnaireId: questionnaire?.id ?? null,
        questionnaireVersion: questionnaire?.version ?? null,
        questions: [...questions],
        state: 'started',
        outcome: null,
        answers: null,
        recommendation: null,
        decision: null,
        createdAt: now,
        updatedAt: now,
        recommendedAt: null,
        completedAt: null,
        shopperDigest,
        experimentId: experiment ? experiment.experimentId : null,
        treatment: experiment ? (experiment.arm.treatment as SessionTreatment) : null,
      };
      await this.sessions.insert(manager, session);
      await this.sessionEvents.record(manager, session, now, [{ type: 'fit_started', key: session.id }]);
      return SessionResponse.from(session);
    });
    if (started === HOLDOUT) {
      throw new ProblemError(
        'experiment_holdout',
        'This shopper is in the holdout of a running experiment on this product: show her no size help',
      );
    }
    return started;
  }

  list(store: Store, query: SessionListQuery): Promise<Page<SessionResponse>> {
    return this.sessions.list(store, query, SessionResponse.from);
  }

  async get(store: Store, id: string): Promise<SessionResponse> {
    return SessionResponse.from(await this.sessions.get(store, id));
  }

  /** Valid answers produce a recommendation; invalid ones are a 400 and leave the session as it was. */
  async answer(store: Store, id: string, request: AnswersRequest): Promise<SessionResponse> {
    return this.transactions.run(async (manager) => {
      const { session, ...context } = await this.sessions.lockForAnswers(manager, store, id);
      if (session.state === 'completed') {
        throw new ProblemError('session_state_conflict', 'The session is completed: its decision is recorded');
      }
      const read = readAnswers(request.answers, session.questions);
      if (!read.ok) throw ProblemError.validation(read.errors);

      const now = new Date();
      // an experiment's chart_only arm: the stated chart's answer, without what outcomes taught or the shopper's history
      const {
        shift: learned,
        links,
        odds,
      } = context.treatment === 'chart_only'
        ? CHART_ONLY
        : await this.learnedState(manager, session, context.productTypeId, context.shopperDigest, now);
      const result = recommendOrRefuse({
        shopper: read.shopper,
        chart: chartInCentimetres(context.chart),
        zoneWeights: context.zoneWeights,
        fitAdjustment: context.fitAdjustment,
        learned: learned ?? undefined,
        links,
      });
      const variants = await this.catalog.variantsBySize(manager, session.productId);
      const outcomes = odds && outcomesOf(odds, result.features, context.chart.sizes, variants, now);
      const recommendation = storedRecommendation(result, variants, { learned, fitAdjustment: context.fitAdjustment, outcomes }, now);
      const recommended: Partial<FitSession> = {
        state: 'recommended',
        answers: request.answers,
        recommendation,
        recommendedAt: now,
        updatedAt: now,
      };
      await this.sessions.recordRecommendation(manager, session.id, request.answers, recommendation, now);
      if (session.state === 'started') await this.sessionEvents.markRecommended(manager, session.storeId, session.id);
      await this.sessionEvents.record(manager, session, now, [
        { type: 'fit_completed', key: recommendation.id },
        { type: 'recommendation_generated', key: recommendation.id, variantId: recommendation.variant_id },
      ]);
      return SessionResponse.from({ ...session, ...recommended });
    });
  }

  /** The shopper's choice: accepted when it is the recommended size, overridden otherwise. Once only. */
  async decide(store: Store, id: string, request: DecisionRequest): Promise<SessionResponse> {
    if ((request.size_label === undefined) === (request.variant_id === undefined)) {
      const message = 'send either size_label or variant_id, not both';
      throw ProblemError.validation([
        { field: 'size_label', code: 'one_of', message },
        { field: 'variant_id', code: 'one_of', message },
      ]);
    }
    return this.transactions.run(async (manager) => {
      const session = await this.sessions.lock(manager, store, id);
      if (session.state !== 'recommended' || !session.recommendation) {
        throw new ProblemError(
          'session_state_conflict',
          session.state === 'started'
            ? 'The session has no recommendation yet: send its answers first'
            : 'The session already has its decision',
        );
      }
      const choice = await this.resolveChoice(manager, store, session, request);
      const now = new Date();
      const outcome = choice.sizeLabel === session.recommendation.size_label ? 'accepted' : 'overridden';
      const decision: StoredDecision = {
        size_label: choice.sizeLabel,
        variant_id: choice.variantId,
        outcome,
        decided_at: now.toISOString(),
      };
      const completed: Partial<FitSession> = { state: 'completed', outcome, decision, completedAt: now, updatedAt: now };
      await this.sessions.recordDecision(manager, session.id, decision, now);
      await this.sessionEvents.record(manager, session, now, [
        {
          type: outcome === 'accepted' ? 'recommendation_accepted' : 'recommendation_overridden',
          key: session.id,
          variantId: choice.variantId,
        },
      ]);
      return SessionResponse.from({ ...session, ...completed });
    });
  }

  private async resolveChoice(
    manager: EntityManager,
    store: Store,
    session: FitSession,
    request: DecisionRequest,
  ): Promise<{ sizeLabel: string; variantId: string | null }> {
    if (request.variant_id !== undefined) {
      const variant = await this.catalog.variant(manager, store, request.variant_id, 'variant_id');
      if (variant.productId !== session.productId) {
        throw ProblemError.field('variant_id', 'not_found', "variant_id is not a variant of the session's product");
      }
      return { sizeLabel: variant.sizeLabel, variantId: variant.id };
    }
    const label = request.size_label as string;
    // the size it recommended stays hers to take, even if an edit of the chart has dropped it since
    const recommended = label === session.recommendation?.size_label;
    return {
      sizeLabel: label,
      variantId: await this.catalog.variantOfSize(manager, session.sizeChartId, session.productId, label, recommended),
    };
  }

  /**
   * What the store's outcomes taught about the session's product (learning.ts), as the engine uses it, and how its
   * answers should read shoppers (answer-link.ts): neither while the store has no outcome that teaches anything, so a
   * store without outcomes gets the stated chart's answers unchanged.
   */
  private async learnedState(
    manager: EntityManager,
    session: FitSession,
    productTypeId: string,
    shopperDigest: Buffer | null,
    now: Date,
  ): Promise<{ shift: LearnedState | null; links: Partial<Record<LinkKind, AnswerLink>>; odds: VerdictOdds | null }> {
    const levels = await this.evidence.levels(manager, session.storeId, session.productId, productTypeId);
    if (levels.store.count === 0) return { shift: null, links: {}, odds: null };
    const links = await this.evidence.links(manager, session.storeId, now, levels.store.count);
    // the store's verdicts are among its outcomes: fewer outcomes than the odds need, and they are not read
    const odds =
      levels.store.count < OUTCOMES_AFTER
        ? null
        : await this.evidence.verdictOdds(manager, session.storeId, session.productId, productTypeId, now);
    const product = learnedOffset(levels, now);
    // a returning shopper's own offset, beyond her products', shrunk towards none like a product's towards its type
    const history = shopperDigest && (await this.evidence.shopper(manager, session.storeId, shopperDigest));
    const shopper =
      history && history.count > 0 ? learnedOffset({ product: history, productType: NO_EVIDENCE, store: NO_EVIDENCE }, now) : null;
    const steps = product.steps + (shopper?.steps ?? 0);
    const sd = Math.sqrt(product.sd ** 2 + (shopper ? shopper.sd ** 2 : 0));
    const shift = { steps: round2(steps), sd: round2(sd), count: product.count, shopperSteps: shopper ? round2(shopper.steps) : null };
    return { shift, links, odds };
  }

  /**
   * A questionnaire that asks nothing of the body's size (no height, weight, measurement or size usually worn) could
   * never give a recommendation: refused here, rather than a session that counts as started and can never be answered.
   */
  private refuseUnanswerable(questions: readonly Question[]): void {
    if (questions.some((q) => SIZE_KEYS.has(q.key))) return;
    throw ProblemError.field(
      'questionnaire_id',
      'cannot_recommend',
      `the questionnaire asks nothing a size can be told from: ask height and weight, a measurement, or usual_size`,
    );
  }

  /** The questionnaire named, else the store's default, else none (the built-in questions). */
  private async questionnaireFor(
    manager: EntityManager,
    store: Store,
    questionnaireId: string | undefined,
  ): Promise<QuestionnaireRef | null> {
    if (questionnaireId === undefined) {
      return this.questionnaires.findDefault(manager, store);
    }
    const questionnaire = await this.questionnaires.reference(manager, store, questionnaireId, 'questionnaire_id');
    if (questionnaire.archivedAt) {
      throw ProblemError.field('questionnaire_id', 'archived', 'this questionnaire is archived');
    }
    return questionnaire;
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** A session start refused because its shopper is in an experiment's holdout. */
const HOLDOUT = Symbol('holdout');

/** What a chart_only session's answers read of learning: nothing. */
const CHART_ONLY = { shift: null, links: {}, odds: null } as const;

/** A learned offset as a recommendation uses and records it. */
type LearnedState = LearnedShift & { count: number; shopperSteps: number | null };

/** The answers a size can be told from: any part of the body, or a size she usually wears. */
const SIZE_KEYS: ReadonlySet<string> = new Set(['height', 'weight', 'usual_size', ...ZONES]);

/** The engine's answer; answers it cannot recommend from are refused as the fields it needs. */
function recommendOrRefuse(input: Parameters<typeof recommend>[0]): Recommendation {
  try {
    return recommend(input);
  } catch (error) {
    if (!(error instanceof InsufficientAnswersError)) throw error;
    throw ProblemError.validation(
      error.fields.map((f) => ({ field: `answers.${f.field}`, code: 'needed_for_recommendation', message: f.message })),
    );
  }
}

type VerdictOdds = Awaited<ReturnType<LearningService['verdictOdds']>>;

/** A store tells shoppers what sizes turned out as once it has counted this many verdicts; before, it says nothing. */
const OUTCOMES_AFTER = 20;

/**
 * What each size of the chart is likely to turn out as, should she take it (sizing/verdicts.ts), in chart order; null
 * while the store has counted fewer than OUTCOMES_AFTER verdicts.
 */
function outcomesOf(
  odds: VerdictOdds,
  features: Recommendation['features'],
  sizes: readonly { label: string }[],
  variants: ReadonlyMap<string, string>,
  now: Date,
): StoredOutcome[] | null {
  if ((odds.places.get(STORE_KEY)?.count ?? 0) < OUTCOMES_AFTER) return null;
  return sizeVerdicts(odds.item, odds.places, features, sizes.length, now).map(([small, fit, large], i) => ({
    size_label: sizes[i].label,
    variant_id: variants.get(sizes[i].label) ?? null,
    too_small: round3(small),
    fit: round3(fit),
    too_large: round3(large),
  }));
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The engine's answer as the session keeps it, with the variants of its sizes and what moved it from the chart. */
function storedRecommendation(
  result: Recommendation,
  variants: ReadonlyMap<string, string>,
  {
    learned,
    fitAdjustment,
    outcomes,
  }: {
    learned: { steps: number; sd: number; count: number; shopperSteps: number | null } | null;
    fitAdjustment: FitAdjustment;
    outcomes: StoredOutcome[] | null;
  },
  now: Date,
): StoredRecommendation {
  return {
    id: newId(),
    size_label: result.sizeLabel,
    variant_id: variants.get(result.sizeLabel) ?? null,
    confidence: result.confidence,
    fit: result.fit,
    alternatives: result.alternatives.map((a) => ({
      size_label: a.sizeLabel,
      variant_id: variants.get(a.sizeLabel) ?? null,
      confidence: a.confidence,
    })),
    measurements: Object.fromEntries(
      Object.entries(result.measurements).map(([zone, m]) => [zone, { value_cm: m.valueCm, source: m.source, sd_cm: m.sdCm }]),
    ),
    model_version: result.modelVersion,
    ...(outcomes ? { outcomes } : {}),
    features: result.features,
    adjustment: {
      source: learned ? 'learned' : fitAdjustment === 'true_to_size' ? 'none' : 'merchant',
      size_steps: learned ? learned.steps : round2(ADJUSTMENT_STEPS[fitAdjustment]),
      sd: learned ? learned.sd : null,
      evidence: learned ? learned.count : 0,
      chart_size_label: result.chartSizeLabel,
      shopper_steps: learned?.shopperSteps ?? null,
    },
    created_at: now.toISOString(),
  };
}

/** The chart as the engine takes it: every range in centimetres. */
function chartInCentimetres(chart: ChartRow): Chart {
  return {
    measurementType: chart.measurementType,
    easeCm: chart.easeCm ?? 0,
    sizes: chart.sizes.map((size) => ({
      label: size.label,
      measurements: Object.fromEntries(
        Object.entries(size.measurements).map(([zone, range]) => [
          zone,
          { min: toCentimetres(range.min, chart.unit), max: toCentimetres(range.max, chart.unit) },
        ]),
      ),
    })),
  };
}
