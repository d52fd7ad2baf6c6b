import type { INestApplication } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import { DECORATORS, type OpenAPIObject, type ReferenceObject, type SchemaObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';

type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

type Schema = SchemaObject | ReferenceObject;

/** The class of every `@Body()` a handler of the app takes, or documents with `@ApiBody()` and validates itself. */
function bodyClasses(app: INestApplication): Set<new () => object> {
  const classes = new Set<new () => object>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      for (const handler of Object.getOwnPropertyNames(controller.prototype)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<string, { index: number }>;
        const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler) ?? []) as unknown[];
        const documented = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, controller.prototype[handler as keyof object]) ?? []) as {
          in?: string;
          type?: unknown;
        }[];
        for (const parameter of documented) {
          if (parameter.in === 'body' && typeof parameter.type === 'function') classes.add(parameter.type as new () => object);
        }
        for (const [key, arg] of Object.entries(args)) {
          const type = types[arg.index];
          if (Number(key.split(':')[0]) === RouteParamtypes.BODY && typeof type === 'function' && type !== Object) {
            classes.add(type as new () => object);
          }
        }
      }
    }
  }
  return classes;
}

const isSchema = (schema: Schema | boolean | undefined): schema is SchemaObject => typeof schema === 'object' && !('$ref' in schema);

/** Types a property names that are no model of a request (their schemas are written out, not referenced). */
const PLAIN_TYPES = new Set<unknown>([String, Number, Boolean, Date, Object, Array]);

/**
 * The body classes and the models their properties name (`@ApiProperty({ type: Line })`, `type: [Line]`), at any depth:
 * each is read by the same rules (a batch's items, validated one by one), so each schema states them.
 */
function withNestedModels(classes: Set<new () => object>): Set<new () => object> {
  const pending = [...classes];
  for (let type = pending.pop(); type !== undefined; type = pending.pop()) {
    const names = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, type.prototype) ?? []) as string[];
    for (const name of names) {
      const property = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, type.prototype, name.replace(/^:/, '')) as
        { type?: unknown } | undefined;
      const nested = property?.type;
      if (typeof nested !== 'function' || PLAIN_TYPES.has(nested) || classes.has(nested as new () => object)) continue;
      classes.add(nested as new () => object);
      pending.push(nested as new () => object);
    }
  }
  return classes;
}

/** Every object schema written out in a request schema (a size, a range, a question) refuses what it does not list. */
function closeNestedObjects(schema: Schema | boolean | undefined): void {
  if (!isSchema(schema)) return;
  if (schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
  for (const child of [
    ...Object.values(schema.properties ?? {}),
    schema.items,
    schema.additionalProperties,
    ...(schema.oneOf ?? []),
    ...(schema.anyOf ?? []),
    ...(schema.allOf ?? []),
  ]) {
    closeNestedObjects(child);
  }
}

/** What the rules of one property enforce on a string, as JSON Schema says it. */
function stringRules(rules: readonly ValidationMetadata[]): Pick<SchemaObject, 'minLength' | 'maxLength'> {
  const derived: Pick<SchemaObject, 'minLength' | 'maxLength'> = {};
  for (const rule of rules) {
    const [first, second] = (rule.constraints ?? []) as (number | undefined)[];
    if (rule.name === 'isLength') Object.assign(derived, { minLength: first, ...(second === undefined ? {} : { maxLength: second }) });
    if (rule.name === 'minLength') derived.minLength = first;
    if (rule.name === 'maxLength') derived.maxLength = first;
  }
  return derived;
}

/**
 * An optional request field's default, said in its description rather than by the `default` keyword: client
 * generators (openapi-typescript with its default options) read a `default` in a named schema as "always present",
 * which is true of an answer but would make clients send what they may leave out.
 */
function describeDefault(property: SchemaObject): void {
  const said = `Default: \`${JSON.stringify(property.default)}\`.`;
  property.description = property.description ? `${property.description} ${said}` : said;
  delete property.default;
}

/**
 * The request bodies' schemas say what the validation pipe enforces, read from the very rules it applies (so they
 * cannot drift apart): no field beyond those listed (`additionalProperties: false`, in nested objects too, as the
 * pipe and the nested checks refuse unknown fields with 400), each string's length limits, and the allowed values of
 * a field checked against a list (`@IsIn`) where the schema does not list them itself; and an optional field's default
 * in its description (`describeDefault`).
 */
export function documentRequestRules(app: INestApplication, document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  for (const type of withNestedModels(bodyClasses(app))) {
    const schema = schemas[type.name];
    if (!isSchema(schema)) throw new Error(`the request body ${type.name} has no schema in the document`);
    const rules = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (!isSchema(property)) continue;
      // rules on the items of a list (`each`) are the items' business, which the property's schema states itself
      const own = rules.filter((rule) => rule.propertyName === name && !rule.each);
      if (property.type === 'string') Object.assign(property, stringRules(own));
      const allowed = own.find((rule) => rule.name === 'isIn')?.constraints?.[0] as unknown[] | undefined;
      if (allowed && property.enum === undefined) property.enum = [...allowed];
      closeNestedObjects(property);
      if (property.default !== undefined && !schema.required?.includes(name)) describeDefault(property);
    }
    schema.additionalProperties = false;
  }
}
