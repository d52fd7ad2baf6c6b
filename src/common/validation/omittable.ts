import { ValidateIf } from 'class-validator';

/**
 * The field may be left out, but when present it must be valid: unlike `@IsOptional()`, `null` is not "left out",
 * so `{"name": null}` is a 400 rather than a NULL that reaches the database.
 */
export const IsOmittable = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
