import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What an arm does to the shopper's size help: all of it, none (a holdout), or the stated chart's answer alone. */
export const TREATMENTS = ['size_help', 'no_size_help', 'chart_only'] as const;
export type Treatment = (typeof TREATMENTS)[number];

/**
 * What an experiment measures, per arm: conversion per exposed unit, and per purchased line the share returned for
 * size, exchanged for size, and kept (docs/experiments.md).
 */
export const METRICS = ['conversion', 'size_return_rate', 'size_exchange_rate', 'kept_rate'] as const;
export type Metric = (typeof METRICS)[number];

export const EXPERIMENT_STATES = ['draft', 'running', 'stopped'] as const;
export type ExperimentState = (typeof EXPERIMENT_STATES)[number];

export interface Arm {
  readonly name: string;
  /** Its share of the units, the shares of an experiment's arms summing to 1. */
  readonly share: number;
  readonly treatment: Treatment;
}

@Entity({ name: 'experiments' })
export class Experiment {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid', name: 'merchant_id' })
  merchantId: string;

  @Column({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  hypothesis: string | null;

  @Column({ type: 'text' })
  state: ExperimentState;

  @Column({ type: 'jsonb' })
  arms: Arm[];

  /** The arm the others are compared with. */
  @Column({ type: 'text', name: 'control_arm' })
  controlArm: string;

  /** The products taking part, when listed; null with `productTypeIds` null too: all of the store's. */
  @Column({ type: 'uuid', name: 'product_ids', array: true, nullable: true })
  productIds: string[] | null;

  /** The product types whose products take part, when the experiment is about types. */
  @Column({ type: 'uuid', name: 'product_type_ids', array: true, nullable: true })
  productTypeIds: string[] | null;

  @Column({ type: 'text', name: 'primary_metric' })
  primaryMetric: Metric;

  @Column({ type: 'text', array: true })
  guardrails: Metric[];

  /** The smallest absolute difference in the primary metric worth detecting (a rate: 0.02 is 2 points). */
  @Column({ type: 'double precision', name: 'minimum_effect' })
  minimumEffect: number;

  /** The primary metric's expected rate in the control arm, from which the sample size is planned. */
  @Column({ type: 'double precision', name: 'baseline_rate', nullable: true })
  baselineRate: number | null;

  /** Units needed for 80% power at the minimum effect (α = 0.05, two-sided). */
  @Column({ type: 'integer', name: 'planned_units' })
  plannedUnits: number;

  /** With a unit's digest, gives its arm: random per experiment, so assignments are independent across experiments. */
  @Column({ type: 'bytea', select: false })
  salt: Buffer;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;

  @Column({ type: 'timestamptz', name: 'started_at', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'stopped_at', nullable: true })
  stoppedAt: Date | null;
}

/** `experiment_exposures`: a unit shown a product of a running experiment, once, with its arm. */
@Entity({ name: 'experiment_exposures' })
class Exposure {
  @PrimaryColumn({ type: 'uuid', name: 'experiment_id' })
  experimentId: string;

  @PrimaryColumn({ type: 'bytea', name: 'unit_digest' })
  unitDigest: Buffer;

  @Column({ type: 'uuid', name: 'store_id' })
  storeId: string;

  @Column({ type: 'text' })
  arm: string;

  @Column({ type: 'timestamptz', name: 'exposed_at' })
  exposedAt: Date;
}

export const EXPERIMENTS_ENTITIES = [Experiment, Exposure];
