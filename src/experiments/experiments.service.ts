import { randomBytes } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/http/ids.js';
import type { Page, PageQuery } from '../common/http/pagination.js';
import { type FieldError, ProblemError } from '../common/problems/problem-error.js';
import { Transactions } from '../database/transactions.js';
import { ShopperDigests } from '../learning/shopper-digests.js';
import type { Store } from '../stores/store.entity.js';
import { StoresService } from '../stores/stores.service.js';
import { armOf } from './assignment.js';
import {
  type AssignmentRequest,
  type AssignmentResponse,
  type CreateExperimentRequest,
  DESIGN_FIELDS,
  type ExperimentPlan,
  ExperimentResponse,
  type UpdateExperimentRequest,
} from './dto/experiment.dto.js';
import type { Arm, Experiment, ExperimentState, Metric } from './experiment.entity.js';
import { ExperimentsRepository } from './experiments.repository.js';
import { planSampleSize } from './statistics.js';

/** The primary metric's rate a plan assumes when the merchant gives none: typical of online apparel. */
const TYPICAL_RATE: Readonly<Record<Metric, number>> = {
  conversion: 0.05,
  size_return_rate: 0.12,
  size_exchange_rate: 0.04,
  kept_rate: 0.6,
};

/**
 * How many lines an exposed unit brings, for plans of rates per purchased line, when the store has no experiment to tell:
 * a product page seen converts about once in twenty, with a little over one line per buyer.
 */
const TYPICAL_BUYING = { purchaseRate: 0.05, linesPerPurchaser: 1.2 } as const;

const OUTSIDE: AssignmentResponse = { experiment_id: null, arm: null, treatment: 'size_help' };

/**
 * Randomized experiments of a store: a draft is planned, started (one running experiment per product), and stopped;
 * shoppers get their arm when a product page of a running one is shown, which records their exposure.
 */
@Injectable()
export class ExperimentsService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly experiments: ExperimentsRepository,
    private readonly stores: StoresService,
    private readonly digests: ShopperDigests,
  ) {}

  onModuleInit(): void {
    this.digests.onErasure((manager, storeId, digest, replacement) => this.experiments.replaceUnit(manager, storeId, digest, replacement));
  }

  async create(store: Store, request: CreateExperimentRequest): Promise<ExperimentResponse> {
    const design: Design = {
      arms: request.arms.map(bareArm),
      control_arm: request.control_arm ?? request.arms[0].name,
      product_ids: request.product_ids ?? null,
      product_type_ids: request.product_type_ids ?? null,
      primary_metric: request.primary_metric,
      guardrails: request.guardrails ?? [],
      minimum_effect: request.minimum_effect,
      baseline_rate: request.baseline_rate ?? null,
    };
    const now = new Date();
    const id = newId();
    await this.transactions.run(async (manager) => {
      await this.refuseInvalid(manager, store, design);
      await this.experiments.insert(manager, {
        id,
        merchantId: store.merchantId,
        storeId: store.id,
        name: request.name,
        hypothesis: request.hypothesis ?? null,
        state: 'draft',
        ...columnsOf(design),
        salt: randomBytes(16),
        createdAt: now,
        updatedAt: now,
        startedAt: null,
        stoppedAt: null,
      });
    });
    return this.get(store, id);
  }

  /**
   * Only the fields sent change. A draft's design changes and is planned again; once started, only the name and the
   * hypothesis do (409 `experiment_state_conflict` otherwise): its results are judged by the design it ran with.
   */
  async update(store: Store, id: string, request: UpdateExperimentRequest): Promise<ExperimentResponse> {
    await this.transactions.run(async (manager) => {
      const experiment = await this.experiments.lock(manager, store, id);
      const redesigned = DESIGN_FIELDS.filter((field) => request[field] !== undefined);
      if (redesigned.length && experiment.state !== 'draft') {
        throw new ProblemError(
          'experiment_state_conflict',
          `Only a draft's design can change (${redesigned.join(', ')}); this one is ${experiment.state}, and only its name and hypothesis can`,
        );
      }
      const changes: Partial<Experiment> = {};
      if (request.name !== undefined) changes.name = request.name;
      if (request.hypothesis !== undefined) changes.hypothesis = request.hypothesis;
      if (redesigned.length) {
        const design = redesign(experiment, request);
        await this.refuseInvalid(manager, store, design);
        Object.assign(changes, columnsOf(design));
      }
      if (Object.keys(changes).length) await this.experiments.update(manager, experiment.id, { ...changes, updatedAt: new Date() });
    });
    return this.get(store, id);
  }

  async list(store: Store, page: PageQuery): Promise<Page<ExperimentResponse>> {
    const dailyUnits = await this.experiments.dailyUnits(store, new Date());
    return this.experiments.list(store, page, (experiment) => ExperimentResponse.from(experiment, this.planOf(experiment, dailyUnits)));
  }

  /** How many shoppers each of the store's experiments `ids` has exposed (0 for a draft). */
  exposedUnits(store: Store, ids: readonly string[]): Promise<Map<string, number>> {
    return this.experiments.exposedUnits(store, ids);
  }

  async get(store: Store, id: string): Promise<ExperimentResponse> {
    const experiment = await this.experiments.get(store, id);
    return ExperimentResponse.from(experiment, this.planOf(experiment, await this.experiments.dailyUnits(store, new Date())));
  }

  /**
   * A draft starts unless a running experiment of the store covers one of its products: starts of a store take turns
   * (the store's lock), so two overlapping drafts started at once cannot both run.
   */
  async start(store: Store, id: string): Promise<ExperimentResponse> {
    await this.transactions.run(async (manager) => {
      await this.stores.lock(manager, store);
      const experiment = await this.experiments.lock(manager, store, id);
      requireState(experiment, 'draft', 'Only a draft experiment can be started');
      const other = await this.experiments.overlapping(manager, experiment);
      if (other) {
        throw new ProblemError('experiment_overlap', `The running experiment ${other} covers some of these products; stop it first`);
      }
      const now = new Date();
      await this.experiments.update(manager, experiment.id, { state: 'running', startedAt: now, updatedAt: now });
    });
    return this.get(store, id);
  }

  async stop(store: Store, id: string): Promise<ExperimentResponse> {
    await this.transactions.run(async (manager) => {
      const experiment = await this.experiments.lock(manager, store, id);
      requireState(experiment, 'running', 'Only a running experiment can be stopped');
      const now = new Date();
      await this.experiments.update(manager, experiment.id, { state: 'stopped', stoppedAt: now, updatedAt: now });
    });
    return this.get(store, id);
  }

  /** A draft goes; an experiment that ran stays, with its exposures, for its results. */
  async delete(store: Store, id: string): Promise<void> {
    await this.transactions.run(async (manager) => {
      const experiment = await this.experiments.lock(manager, store, id);
      requireState(experiment, 'draft', 'Only a draft experiment can be deleted; stop a running one instead');
      await this.experiments.delete(manager, experiment.id);
    });
  }

  /**
   * The arm of the shopper for the product shown, recorded as her exposure the first time: outside any running
   * experiment, size help as usual. The product must be the store's (400 on `product_id`).
   */
  async assign(store: Store, request: AssignmentRequest): Promise<AssignmentResponse> {
    const { product, experiment } = await this.experiments.runningFor(store, request.product_id.toLowerCase());
    if (!product) throw ProblemError.field('product_id', 'not_found', 'product_id names no product of this store');
    if (!experiment) return OUTSIDE;
    const arm = await this.transactions.run(async (manager) => {
      const [unit] = await this.digests.of(manager, store.id, [request.shopper_ref]);
      const arm = armOf(experiment.arms, experiment.salt, unit);
      await this.experiments.expose(manager, store.id, experiment.id, unit, arm.name, new Date());
      return arm;
    });
    return { experiment_id: experiment.id, arm: arm.name, treatment: arm.treatment };
  }

  /**
   * The arm of a session's shopper, in the session's transaction: in a running experiment covering the product, the arm
   * she was exposed to, or (when the integration did not ask for it when showing the page) her arm, exposed now. Null
   * outside any experiment. So a session always carries the treatment the experiment gives her.
   */
  async armOfSession(
    manager: EntityManager,
    storeId: string,
    product: { id: string; productTypeId: string },
    unit: Buffer,
    now: Date,
  ): Promise<{ experimentId: string; arm: Arm } | null> {
    const experiment = await this.experiments.runningForUnit(manager, storeId, product, unit);
    if (!experiment) return null;
    const exposed = experiment.arms.find((arm) => arm.name === experiment.exposedArm);
    if (exposed) return { experimentId: experiment.id, arm: exposed };
    const arm = armOf(experiment.arms, experiment.salt, unit);
    await this.experiments.expose(manager, storeId, experiment.id, unit, arm.name, now);
    return { experimentId: experiment.id, arm };
  }

  /** Every fault of a design in one 400: arms and control, the products' choice, the metrics, the effect against its rate. */
  private async refuseInvalid(manager: EntityManager, store: Store, design: Design): Promise<void> {
    const errors: FieldError[] = [];
    if (!design.arms.some((arm) => arm.name === design.control_arm)) {
      errors.push({ field: 'control_arm', code: 'not_an_arm', message: 'control_arm must name one of the arms' });
    }
    if (design.product_ids !== null && design.product_type_ids !== null) {
      errors.push({ field: 'product_type_ids', code: 'not_with_product_ids', message: 'send product_ids or product_type_ids, not both' });
    }
    for (const field of ['product_ids', 'product_type_ids'] as const) {
      if (design[field]?.length === 0) {
        errors.push({ field, code: 'empty', message: `${field} must name at least one; leave both out for all products` });
      }
    }
    const baseline = design.baseline_rate ?? TYPICAL_RATE[design.primary_metric];
    if (effectFrom(baseline, design.minimum_effect) === null) {
      errors.push({
        field: 'minimum_effect',
        code: 'out_of_range',
        message: `minimum_effect must leave the rate between 0 and 1 in one direction from the baseline rate ${baseline}`,
      });
    }
    if (design.guardrails.includes(design.primary_metric)) {
      errors.push({ field: 'guardrails', code: 'primary_metric', message: 'guardrails must not repeat the primary metric' });
    }
    if (errors.length) throw ProblemError.validation(errors);
    const missing = [
      ...(await this.experiments.missingProducts(manager, store, design.product_ids ?? [])).map((at) => ({ field: 'product_ids', at })),
      ...(await this.experiments.missingProductTypes(manager, store, design.product_type_ids ?? [])).map((at) => ({
        field: 'product_type_ids',
        at,
      })),
    ];
    if (missing.length) {
      throw ProblemError.validation(
        missing.map(({ field, at }) => ({ field, code: 'not_found', message: `${field}[${at}] names nothing of that kind in this store` })),
      );
    }
  }

  private planOf(experiment: Experiment, dailyUnits: number | null): ExperimentPlan {
    const baseline = experiment.baselineRate ?? TYPICAL_RATE[experiment.primaryMetric];
    const { totalUnits, unitsPerArm } = plan(
      experiment.arms,
      experiment.controlArm,
      experiment.primaryMetric,
      baseline,
      experiment.minimumEffect,
    );
    return {
      units_needed: totalUnits,
      arms: experiment.arms.map((arm, i) => ({ arm: arm.name, units: unitsPerArm[i] })),
      baseline_rate: baseline,
      daily_units: dailyUnits === null ? null : Math.round(dailyUnits * 10) / 10,
      expected_days: dailyUnits === null ? null : Math.ceil(totalUnits / dailyUnits),
    };
  }
}

/** An experiment's design as the API names it, whole: what a draft is created with, or becomes when changed. */
interface Design {
  readonly arms: readonly Arm[];
  readonly control_arm: string;
  readonly product_ids: readonly string[] | null;
  readonly product_type_ids: readonly string[] | null;
  readonly primary_metric: Metric;
  readonly guardrails: readonly Metric[];
  readonly minimum_effect: number;
  readonly baseline_rate: number | null;
}

/** An arm as sent, without anything else its object carried. */
const bareArm = ({ name, share, treatment }: Arm): Arm => ({ name, share, treatment });

/**
 * A draft's design with the changes sent: the control stays while it names an arm (else the first arm), the products'
 * choice is replaced whole when either list is sent, and kept guardrails drop a metric that became the primary one.
 */
function redesign(experiment: Experiment, request: UpdateExperimentRequest): Design {
  const arms = request.arms?.map(bareArm) ?? experiment.arms;
  const rescoped = request.product_ids !== undefined || request.product_type_ids !== undefined;
  const primary = request.primary_metric ?? experiment.primaryMetric;
  return {
    arms,
    control_arm: request.control_arm ?? (arms.some((arm) => arm.name === experiment.controlArm) ? experiment.controlArm : arms[0].name),
    product_ids: rescoped ? (request.product_ids ?? null) : experiment.productIds,
    product_type_ids: rescoped ? (request.product_type_ids ?? null) : experiment.productTypeIds,
    primary_metric: primary,
    guardrails: request.guardrails ?? experiment.guardrails.filter((metric) => metric !== primary),
    minimum_effect: request.minimum_effect ?? experiment.minimumEffect,
    baseline_rate: request.baseline_rate !== undefined ? request.baseline_rate : experiment.baselineRate,
  };
}

/** A valid design as the experiment's columns, with the units its plan needs. */
function columnsOf(design: Design) {
  return {
    arms: design.arms.map(bareArm),
    controlArm: design.control_arm,
    productIds: design.product_ids === null ? null : unique(design.product_ids),
    productTypeIds: design.product_type_ids === null ? null : unique(design.product_type_ids),
    primaryMetric: design.primary_metric,
    guardrails: [...design.guardrails],
    minimumEffect: design.minimum_effect,
    baselineRate: design.baseline_rate,
    plannedUnits: plan(
      design.arms,
      design.control_arm,
      design.primary_metric,
      design.baseline_rate ?? TYPICAL_RATE[design.primary_metric],
      design.minimum_effect,
    ).totalUnits,
  } satisfies Partial<Experiment>;
}

/** The effect the plan looks for: upwards from the baseline when the rate can go there, else downwards; null if neither. */
function effectFrom(baseline: number, minimumEffect: number): number | null {
  if (baseline + minimumEffect < 1) return minimumEffect;
  return baseline - minimumEffect > 0 ? -minimumEffect : null;
}

function plan(arms: readonly Arm[], controlArm: string, metric: Metric, baseline: number, minimumEffect: number) {
  return planSampleSize({
    baseline,
    minimumEffect: effectFrom(baseline, minimumEffect) ?? minimumEffect,
    shares: arms.map((arm) => arm.share),
    control: arms.findIndex((arm) => arm.name === controlArm),
    ...(metric === 'conversion' ? {} : { perLine: TYPICAL_BUYING }),
  });
}

const unique = (ids: readonly string[]): string[] => [...new Set(ids.map((id) => id.toLowerCase()))];

function requireState(experiment: Experiment, state: ExperimentState, message: string): void {
  if (experiment.state !== state) throw new ProblemError('experiment_state_conflict', `${message}; this one is ${experiment.state}`);
}
