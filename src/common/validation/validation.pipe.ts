import { type ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError, type ValidatorOptions } from 'class-validator';
import { type FieldError, ProblemError } from '../problems/problem-error.js';
import { FIELD_ERRORS_CONSTRAINT } from './validate-with.js';

/** class-validator constraint names → the stable `snake_case` codes clients see in `errors[].code`. */
const CONSTRAINT_CODES: Readonly<Record<string, string>> = {
  whitelistValidation: 'unknown_field',
  isDefined: 'required',
  isNotEmpty: 'required',
  isString: 'must_be_string',
  isInt: 'must_be_integer',
  isNumber: 'must_be_number',
  isBoolean: 'must_be_boolean',
  isArray: 'must_be_array',
  isObject: 'must_be_object',
  isIn: 'not_allowed_value',
  isEnum: 'not_allowed_value',
  arrayNotEmpty: 'must_not_be_empty',
  arrayUnique: 'must_be_unique',
  arrayMaxSize: 'too_many_items',
  maxLength: 'too_long',
  isLength: 'invalid_length',
  minLength: 'too_short',
  min: 'too_small',
  max: 'too_large',
  isUuid: 'must_be_id',
  matches: 'invalid_format',
  isRfc3339: 'invalid_timestamp',
};

/**
 * Validation for every body and query: unknown fields are refused (a typo never silently becomes a default),
 * values are converted to the declared types, and each failure becomes one entry of a 400 problem.
 */
const VALIDATOR_OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
  stopAtFirstError: true,
} satisfies ValidatorOptions;

@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      ...VALIDATOR_OPTIONS,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: (errors) => ProblemError.validation(flatten(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query') refuseNul(value);
    const isDto = metadata.metatype !== undefined && this.toValidate(metadata);
    if (isDto && metadata.type === 'body' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new ProblemError('invalid_json', 'The request body must be a JSON object');
    }
    return super.transform(value ?? {}, metadata);
  }
}

/** A query's text held to the body's rule (json-body.ts): PostgreSQL's text cannot hold the NUL character. */
function refuseNul(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  for (const [name, value] of Object.entries(query)) {
    const texts: unknown[] = Array.isArray(value) ? value : [value];
    if (name.includes('\u0000') || texts.some((text) => typeof text === 'string' && text.includes('\u0000'))) {
      const field = name.replaceAll('\u0000', '\\u0000');
      throw ProblemError.field(field, 'invalid_character', `${field} must not contain the NUL character`);
    }
  }
}

/**
 * The pipe's rules applied to one object inside a body (an item of a batch): the same codes and messages as a
 * whole-body 400, with fields relative to the object.
 */
export async function validateObject<T extends object>(
  metatype: new () => T,
  value: object,
): Promise<{ ok: true; value: T } | { ok: false; errors: FieldError[] }> {
  const instance = plainToInstance(metatype, value, { enableImplicitConversion: false });
  const errors = await validate(instance, VALIDATOR_OPTIONS);
  return errors.length ? { ok: false, errors: flatten(errors) } : { ok: true, value: instance };
}

function flatten(errors: readonly ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).flatMap(([constraint, message]): FieldError[] => {
      if (constraint === FIELD_ERRORS_CONSTRAINT) {
        return (JSON.parse(message) as FieldError[]).map((e) => ({ ...e, field: `${field}${e.field}` }));
      }
      return [
        {
          field,
          code: CONSTRAINT_CODES[constraint] ?? toSnakeCase(constraint),
          message: constraint === 'whitelistValidation' ? `${field} is not a known field` : message,
        },
      ];
    });
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

function toSnakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
