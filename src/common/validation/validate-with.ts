import { registerDecorator, type ValidationArguments } from 'class-validator';
import type { FieldError } from '../problems/problem-error.js';

/** The constraint name the validation pipe expands into one `errors[]` entry per nested field. */
export const FIELD_ERRORS_CONSTRAINT = 'fieldErrors';

/**
 * Validates a structured value (a map of zones, a list of sizes…) with a function that returns one error per
 * offending nested field, `field` relative to the property (`[1].label`, `.chest`). All of them reach the client,
 * beside the errors of the other properties, in one 400.
 */
export function ValidateWith(check: (value: unknown, object: object) => readonly FieldError[]) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: FIELD_ERRORS_CONSTRAINT,
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => check(value, args.object).length === 0,
        defaultMessage: (args: ValidationArguments) => JSON.stringify(check(args?.value, args?.object ?? {})),
      },
    });
}
