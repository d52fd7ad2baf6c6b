import { type ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { type ClassConstructor, type ClassTransformOptions, instanceToPlain, plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, type ValidationError, type ValidatorOptions } from 'class-validator';
import { type FieldError, ProblemError } from '../problems/problem-error.js';
import { FIELD_ERRORS_CONSTRAINT } from './validate-with.js';

/** class-validator constraint names → the stable `snake_case` codes clients see in `errors[].code`. */
const CONSTRAINT_CODES: Readonly<Record<string, string>> = {
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
 * Validation for every body and query: unknown fields are refused (a typo never silently becomes a default; see
 * `unknownFields`, which replaces class-validator's whitelist), values are converted to the declared types, and each
 * failure becomes one entry of a 400 problem.
 */
const VALIDATOR_OPTIONS = {
  forbidUnknownValues: true,
  // the value tells an absent field (`required`) from a wrong one; it never reaches the client
  validationError: { target: false, value: true },
  stopAtFirstError: true,
} satisfies ValidatorOptions;

const TRANSFORM_OPTIONS: ClassTransformOptions = { enableImplicitConversion: false };

/** The properties a class declares rules for, its parents' included: the fields a body or query may name. */
const knownFieldsByClass = new Map<new () => object, ReadonlySet<string>>();

function knownFields(metatype: new () => object): ReadonlySet<string> {
  let known = knownFieldsByClass.get(metatype);
  if (!known) {
    const rules = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false);
    known = new Set(rules.map((rule) => rule.propertyName));
    knownFieldsByClass.set(metatype, known);
  }
  return known;
}

/**
 * One error per field the class does not declare, from the object's own keys. Not class-validator's whitelist: it
 * sees the object only after class-transformer, which drops every key that names a member of Object.prototype
 * (`toString`, `valueOf`, `constructor`…), so those passed unnoticed.
 */
function unknownFields(metatype: new () => object, plain: object): FieldError[] {
  const known = knownFields(metatype);
  return Object.keys(plain)
    .filter((key) => !known.has(key))
    .map((field) => ({ field, code: 'unknown_field', message: `${field} is not a known field` }));
}

/** Plain JSON data (objects, arrays, primitives), as opposed to an instance of a class. */
function isPlainData(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(isPlainData);
  return Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * class-transformer's `plainToInstance`, but with nested plain values (a map of zones, a list of sizes, answers) as
 * the request sent them: class-transformer rebuilds them without the keys that name members of Object.prototype,
 * and the validators would then judge `{"chest": 1, "toString": 1}` as `{"chest": 1}`. Nested classes (`@Type`)
 * are left to it.
 */
function toInstance<T>(metatype: ClassConstructor<T>, plain: unknown, options: ClassTransformOptions = TRANSFORM_OPTIONS): T {
  const instance = plainToInstance(metatype, plain, options);
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) return instance;
  const fields = instance as Record<string, unknown>;
  for (const [key, value] of Object.entries(plain)) {
    if (typeof value === 'object' && value !== null && Object.hasOwn(fields, key) && isPlainData(fields[key])) fields[key] = value;
  }
  return instance;
}

@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      ...VALIDATOR_OPTIONS,
      transform: true,
      transformOptions: TRANSFORM_OPTIONS,
      transformerPackage: { plainToInstance: toInstance, classToPlain: instanceToPlain },
      exceptionFactory: (errors) => ProblemError.validation(flatten(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query') refuseNul(value);
    const isDto = metadata.metatype !== undefined && this.toValidate(metadata);
    if (isDto && metadata.type === 'body' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new ProblemError('invalid_json', 'The request body must be a JSON object');
    }
    if (!isDto) return super.transform(value ?? {}, metadata);
    const plain = (value ?? {}) as object;
    const unknown = unknownFields(metadata.metatype as new () => object, plain);
    let instance: unknown;
    try {
      instance = await super.transform(plain, metadata);
    } catch (error) {
      if (unknown.length && error instanceof ProblemError) throw ProblemError.validation([...unknown, ...(error.errors ?? [])]);
      throw error;
    }
    if (unknown.length) throw ProblemError.validation(unknown);
    return instance;
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
  const unknown = unknownFields(metatype, value);
  const instance = toInstance(metatype, value);
  const errors = [...unknown, ...flatten(await validate(instance, VALIDATOR_OPTIONS))];
  return errors.length ? { ok: false, errors } : { ok: true, value: instance };
}

/**
 * One entry per offending field. A field that is absent is `required`, whichever rule it failed first (`isString`
 * on a missing name said `must_be_string`): clients branch on the code, and "send it" is another fix than "send it
 * right". A field sent with a wrong value keeps the code of the rule it broke.
 */
function flatten(errors: readonly ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    if (error.value === undefined && error.constraints !== undefined) {
      return [{ field, code: 'required', message: `${field} is required` }];
    }
    const own = Object.entries(error.constraints ?? {}).flatMap(([constraint, message]): FieldError[] => {
      if (constraint === FIELD_ERRORS_CONSTRAINT) {
        return (JSON.parse(message) as FieldError[]).map((e) => ({ ...e, field: `${field}${e.field}` }));
      }
      return [
        {
          field,
          code: Object.hasOwn(CONSTRAINT_CODES, constraint) ? CONSTRAINT_CODES[constraint] : toSnakeCase(constraint),
          message,
        },
      ];
    });
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

function toSnakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
