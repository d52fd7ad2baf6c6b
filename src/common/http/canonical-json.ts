import { isPlainObject } from '../validation/plain-object.js';

/**
 * The JSON text of a parsed JSON value with the keys of every object, at every level, in sorted order: two spellings
 * of one request (`{"a":1,"b":2}` and `{"b":2,"a":1}`) give one text. Arrays keep their order, which means something.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, node: unknown) =>
    isPlainObject(node)
      ? Object.fromEntries(
          Object.keys(node)
            .sort()
            .map((key) => [key, node[key]]),
        )
      : node,
  );
}
