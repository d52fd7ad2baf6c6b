import type { FieldError } from '../common/problems/problem-error.js';
import { isPlainObject } from '../common/validation/plain-object.js';
import { ZONES } from '../sizing/types.js';
import type { Question } from './fit.entities.js';

/** Keys the recommendation engine understands; `custom:<name>` keys are kept but not used. */
const PROFILE_KEYS = ['height', 'weight', 'age', 'sex', 'fit_preference', 'usual_size'] as const;
export const ENGINE_KEYS: readonly string[] = [...PROFILE_KEYS, ...ZONES];
const CUSTOM_KEY = /^custom:[a-z0-9_]{1,50}$/;
const MAX_QUESTIONS = 50;

/** The questions of a session started without a questionnaire in a store that has no default one. */
export const DEFAULT_QUESTIONS: readonly Question[] = [
  { key: 'height', required: true },
  { key: 'weight', required: true },
  { key: 'age', required: false },
  { key: 'sex', required: false },
  { key: 'fit_preference', required: false },
];

export const isCustomKey = (key: string) => CUSTOM_KEY.test(key);

/** `questions`: 1–50 `{key, required}` with known or `custom:<name>` keys, each key once. */
export function checkQuestions(value: unknown): FieldError[] {
  if (!Array.isArray(value)) return [{ field: '', code: 'must_be_array', message: 'questions must be an array' }];
  if (value.length === 0) return [{ field: '', code: 'must_not_be_empty', message: 'a questionnaire asks at least one question' }];
  if (value.length > MAX_QUESTIONS) {
    return [{ field: '', code: 'too_many_items', message: `a questionnaire asks at most ${MAX_QUESTIONS} questions` }];
  }
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  value.forEach((question: unknown, i) => {
    const at = `[${i}]`;
    if (!isPlainObject(question)) {
      errors.push({ field: at, code: 'must_be_object', message: 'a question is {"key": string, "required": boolean}' });
      return;
    }
    for (const key of Object.keys(question)) {
      if (key !== 'key' && key !== 'required') {
        errors.push({ field: `${at}.${key}`, code: 'unknown_field', message: `questions${at}.${key} is not a known field` });
      }
    }
    const key = question.key;
    if (typeof key !== 'string' || !(ENGINE_KEYS.includes(key) || isCustomKey(key))) {
      errors.push({
        field: `${at}.key`,
        code: 'unknown_question',
        message: `key must be one of ${ENGINE_KEYS.join(', ')}, or custom:<name> (a–z, 0–9, _)`,
      });
    } else if (seen.has(key)) {
      errors.push({ field: `${at}.key`, code: 'duplicate_question', message: `${key} is asked twice` });
    } else {
      seen.add(key);
    }
    if (typeof question.required !== 'boolean') {
      errors.push({ field: `${at}.required`, code: 'must_be_boolean', message: 'required must be true or false' });
    }
  });
  return errors;
}
