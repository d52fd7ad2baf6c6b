import type { FieldError } from '../common/problems/problem-error.js';
import { isPlainObject } from '../common/validation/plain-object.js';
import { isZone } from '../sizing/types.js';
import { ANSWER_LIMITS, BRA_SIZE_SD_CM, MEASUREMENT_METHODS, type MeasurementMethod, ZONE_LIMITS } from '../sizing/limits.js';
import { FIT_PREFERENCES, type FitPreference, SEXES, type Sex, type Shopper, type Zone } from '../sizing/types.js';
import type { Question } from './fit.entities.js';
import { isCustomKey } from './questions.js';

const CM_PER_INCH = 2.54;
const KG_PER_POUND = 0.45359237;
const MAX_CUSTOM_LENGTH = 500;
/** As long as a size label of a chart may be (catalog-rules.ts). */
const MAX_SIZE_LABEL_LENGTH = 50;

type AnswersCheck = { ok: true; shopper: Shopper } | { ok: false; errors: FieldError[] };

/**
 * Checks a session's answers against its questions and turns them into the engine's input, converting units once,
 * here. Every offending answer gets its own error (`answers.<key>…`); nothing partial is ever used.
 */
export function readAnswers(answers: Record<string, unknown>, questions: readonly Question[]): AnswersCheck {
  const errors: FieldError[] = [];
  const fail: Fail = (key, code, message, suffix = '') => errors.push({ field: `answers.${key}${suffix}`, code, message });
  const asked = new Set(questions.map((q) => q.key));
  const shopper: MutableShopper = { measured: {} };
  const measured: Partial<Record<Zone, number>> = {};
  const measuredSdCm: Partial<Record<Zone, number>> = {};

  for (const question of questions) {
    if (question.required && !Object.hasOwn(answers, question.key)) {
      fail(question.key, 'required', `${question.key} is required by this questionnaire`);
    }
  }
  for (const [key, value] of Object.entries(answers)) {
    if (!asked.has(key)) fail(key, 'not_asked', `${key} is not a question of this session's questionnaire`);
    else if (Object.hasOwn(READERS, key)) Object.assign(shopper, READERS[key](value, key, fail));
    else if (isZone(key)) {
      const zone = readZone(key, value, fail);
      if (zone === undefined) continue;
      measured[key] = zone.cm;
      if (zone.method === 'bra_size') measuredSdCm[key] = BRA_SIZE_SD_CM;
    } else if (isCustomKey(key) && !isCustomValue(value)) {
      fail(key, 'invalid_custom_answer', `a custom answer is a number, a boolean or a string of at most ${MAX_CUSTOM_LENGTH} characters`);
    }
  }
  if (errors.length) return { ok: false, errors };
  return { ok: true, shopper: { ...shopper, measured, ...(Object.keys(measuredSdCm).length ? { measuredSdCm } : {}) } };
}

type MutableShopper = { -readonly [K in keyof Shopper]: Shopper[K] };

/** How each built-in question's answer is read: what it sets, or nothing once it has failed. */
const READERS: Readonly<Record<string, (value: unknown, key: string, fail: Fail) => Partial<MutableShopper> | undefined>> = {
  height: (value, key, fail) => {
    const cm = readLength(value, key, fail);
    if (cm === undefined) return undefined;
    if (!outside(cm, ANSWER_LIMITS.height)) return { heightCm: cm };
    fail(key, 'out_of_range', `height must be from ${range(ANSWER_LIMITS.height, 'cm')}`, '.value');
    return undefined;
  },
  weight: (value, key, fail) => {
    const kg = readWeight(value, fail);
    if (kg === undefined) return undefined;
    if (!outside(kg, ANSWER_LIMITS.weight)) return { weightKg: kg };
    fail(key, 'out_of_range', `weight must be from ${range(ANSWER_LIMITS.weight, 'kg')}`, '.value');
    return undefined;
  },
  age: (value, key, fail) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) fail(key, 'must_be_number', 'age is a number of years');
    else if (outside(value, ANSWER_LIMITS.age)) {
      fail(key, 'out_of_range', `age must be from ${ANSWER_LIMITS.age.min} to ${ANSWER_LIMITS.age.max} years`);
    } else return { age: value };
    return undefined;
  },
  sex: (value, key, fail) => {
    if (SEXES.includes(value as Sex)) return { sex: value as Sex };
    fail(key, 'not_allowed_value', `sex must be one of ${SEXES.join(', ')}`);
    return undefined;
  },
  fit_preference: (value, key, fail) => {
    if (FIT_PREFERENCES.includes(value as FitPreference)) return { fitPreference: value as FitPreference };
    fail(key, 'not_allowed_value', `fit_preference must be one of ${FIT_PREFERENCES.join(', ')}`);
    return undefined;
  },
  usual_size: (value, key, fail) => {
    if (typeof value === 'string' && value.trim().length > 0 && value.length <= MAX_SIZE_LABEL_LENGTH) return { usualSize: value };
    fail(key, 'must_be_size_label', `usual_size is a size label of 1–${MAX_SIZE_LABEL_LENGTH} characters, e.g. "M"`);
    return undefined;
  },
};

/**
 * A measured zone's answer in centimetres, within what a human body can measure, and how it was measured: `{value,
 * unit, method?}`, the method `tape` unless said (`bra_size`: a bust read from a bra size, chest only).
 */
function readZone(key: Zone, value: unknown, fail: Fail): { cm: number; method: MeasurementMethod } | undefined {
  let method: MeasurementMethod = 'tape';
  let measure = value;
  if (isPlainObject(value) && Object.hasOwn(value, 'method')) {
    const { method: given, ...rest } = value;
    measure = rest;
    if (!MEASUREMENT_METHODS.includes(given as MeasurementMethod)) {
      fail(key, 'not_allowed_value', `${key}.method must be one of ${MEASUREMENT_METHODS.join(', ')}`, '.method');
      return undefined;
    }
    if (given === 'bra_size' && key !== 'chest') {
      fail(key, 'not_allowed_value', 'bra_size measures the chest only: measure this zone with a tape', '.method');
      return undefined;
    }
    method = given as MeasurementMethod;
  }
  const cm = readLength(measure, key, fail);
  if (cm === undefined) return undefined;
  if (!outside(cm, ZONE_LIMITS[key])) return { cm, method };
  fail(key, 'out_of_range', `no human has a ${key} of ${round1(cm)} cm: it must be from ${range(ZONE_LIMITS[key], 'cm')}`, '.value');
  return undefined;
}

type Fail = (key: string, code: string, message: string, suffix?: string) => void;

/** `{value, unit: cm|in}` → centimetres. */
function readLength(value: unknown, key: string, fail: Fail): number | undefined {
  const measure = readMeasure(value, key, ['cm', 'in'], fail);
  return measure && (measure.unit === 'in' ? measure.value * CM_PER_INCH : measure.value);
}

/** `{value, unit: kg|lb}` → kilograms. */
function readWeight(value: unknown, fail: Fail): number | undefined {
  const measure = readMeasure(value, 'weight', ['kg', 'lb'], fail);
  return measure && (measure.unit === 'lb' ? measure.value * KG_PER_POUND : measure.value);
}

function readMeasure(value: unknown, key: string, units: readonly string[], fail: Fail): { value: number; unit: string } | undefined {
  const shape = `{"value": number, "unit": ${units.map((u) => `"${u}"`).join(' | ')}}`;
  if (!isPlainObject(value) || Object.keys(value).some((k) => k !== 'value' && k !== 'unit')) {
    fail(key, 'must_be_measure', `${key} must be ${shape}`);
    return undefined;
  }
  let valid = true;
  if (typeof value.value !== 'number' || !Number.isFinite(value.value)) {
    fail(key, 'must_be_number', `${key}.value must be a number`, '.value');
    valid = false;
  }
  if (typeof value.unit !== 'string' || !units.includes(value.unit)) {
    fail(key, 'not_allowed_value', `${key}.unit must be one of ${units.join(', ')}`, '.unit');
    valid = false;
  }
  return valid ? { value: value.value as number, unit: value.unit as string } : undefined;
}

function isCustomValue(value: unknown): boolean {
  return (
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    (typeof value === 'string' && value.length <= MAX_CUSTOM_LENGTH)
  );
}

const outside = (value: number, limits: { min: number; max: number }) => value < limits.min || value > limits.max;
const range = (limits: { min: number; max: number }, unit: string) => `${limits.min} to ${limits.max} ${unit}`;
const round1 = (value: number) => Math.round(value * 10) / 10;

/** A chart's ranges in centimetres, whatever unit the merchant wrote them in. */
export function toCentimetres(value: number, unit: 'cm' | 'in'): number {
  return unit === 'in' ? value * CM_PER_INCH : value;
}
