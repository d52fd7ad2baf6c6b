import type { FieldError } from '../common/problems/problem-error.js';
import { isPlainObject } from '../common/validation/plain-object.js';
import { isZone, ZONES, type Zone, type ZoneWeights } from '../sizing/types.js';
import type { SizeDefinition } from './catalog.entities.js';

/** The most a zone weight can be; weights are relative, so a small range is plenty. */
const MAX_ZONE_WEIGHT = 10;
const MAX_SIZES = 50;
/** No chart range is larger than this, in either unit. */
const MAX_RANGE_VALUE = 500;

const error = (field: string, code: string, message: string): FieldError => ({ field, code, message });

/** `zone_weights`: known zones, weights from 0 to 10, at least one above 0. Fields are relative (`.chest`). */
export function checkZoneWeights(value: unknown): FieldError[] {
  if (!isPlainObject(value)) return [error('', 'must_be_object', 'zone_weights must be an object of zone → weight')];
  const errors: FieldError[] = [];
  for (const [zone, weight] of Object.entries(value)) {
    if (!isZone(zone)) {
      errors.push(error(`.${zone}`, 'unknown_zone', `${zone} is not a zone; zones are ${ZONES.join(', ')}`));
    } else if (typeof weight !== 'number' || !Number.isFinite(weight)) {
      errors.push(error(`.${zone}`, 'must_be_number', `the weight of ${zone} must be a number`));
    } else if (weight < 0 || weight > MAX_ZONE_WEIGHT) {
      errors.push(error(`.${zone}`, 'out_of_range', `the weight of ${zone} must be from 0 to ${MAX_ZONE_WEIGHT}`));
    }
  }
  if (errors.length === 0 && !Object.values(value).some((weight) => (weight as number) > 0)) {
    errors.push(error('', 'no_weighted_zone', 'at least one zone must have a weight above 0'));
  }
  return errors;
}

/**
 * `sizes`: 1–50 sizes, smallest first; unique labels; each size measures at least one zone; every range has
 * 0 < min < max; and for each zone, ranges never go down from one size to the next.
 */
export function checkSizes(value: unknown): FieldError[] {
  if (!Array.isArray(value)) return [error('', 'must_be_array', 'sizes must be an array of sizes, smallest first')];
  if (value.length === 0) return [error('', 'must_not_be_empty', 'a chart needs at least one size')];
  if (value.length > MAX_SIZES) return [error('', 'too_many_items', `a chart has at most ${MAX_SIZES} sizes`)];
  const errors: FieldError[] = [];
  const labels = new Set<string>();
  const previous = new Map<Zone, { min: number; max: number }>();
  value.forEach((size: unknown, i) => {
    const at = `[${i}]`;
    if (!isPlainObject(size)) {
      errors.push(error(at, 'must_be_object', `sizes${at} must be an object with label and measurements`));
      return;
    }
    for (const key of Object.keys(size)) {
      if (key !== 'label' && key !== 'measurements') {
        errors.push(error(`${at}.${key}`, 'unknown_field', `sizes${at}.${key} is not a known field`));
      }
    }
    const label = size.label;
    if (typeof label !== 'string' || label.trim() === '' || label.length > 50) {
      errors.push(error(`${at}.label`, 'invalid_label', 'a size label is a non-blank string of at most 50 characters'));
    } else if (labels.has(label)) {
      errors.push(error(`${at}.label`, 'duplicate_label', `the label ${label} is used twice`));
    } else {
      labels.add(label);
    }
    const measurements = size.measurements;
    if (!isPlainObject(measurements) || Object.keys(measurements).length === 0) {
      errors.push(error(`${at}.measurements`, 'must_be_object', 'measurements must map at least one zone to {min, max}'));
      return;
    }
    for (const [zone, range] of Object.entries(measurements)) {
      const field = `${at}.measurements.${zone}`;
      if (!isZone(zone)) {
        errors.push(error(field, 'unknown_zone', `${zone} is not a zone; zones are ${ZONES.join(', ')}`));
        continue;
      }
      const rangeError = checkRange(range);
      if (rangeError) {
        errors.push(error(field, rangeError.code, rangeError.message));
        continue;
      }
      const { min, max } = range as { min: number; max: number };
      const before = previous.get(zone);
      if (before && (min < before.min || max < before.max)) {
        errors.push(error(field, 'not_ascending', `sizes must be listed smallest first: ${zone} gets smaller here`));
      }
      previous.set(zone, { min, max });
    }
  });
  return errors;
}

function checkRange(range: unknown): { code: string; message: string } | undefined {
  if (!isPlainObject(range) || Object.keys(range).some((key) => key !== 'min' && key !== 'max')) {
    return { code: 'must_be_range', message: 'a range is {"min": number, "max": number}' };
  }
  const { min, max } = range;
  if (typeof min !== 'number' || typeof max !== 'number' || !Number.isFinite(min) || !Number.isFinite(max)) {
    return { code: 'must_be_range', message: 'min and max must both be numbers' };
  }
  if (min <= 0 || max > MAX_RANGE_VALUE) {
    return { code: 'out_of_range', message: `ranges lie between 0 and ${MAX_RANGE_VALUE}` };
  }
  if (min >= max) return { code: 'min_not_below_max', message: 'min must be below max' };
  return undefined;
}

/**
 * The zones a product type weighs (weight above 0) that no size of a chart states, in the order of `ZONES`. The
 * engine could only leave them out of the decision, so a product that pairs the two is refused.
 */
export function unstatedZones(weights: ZoneWeights, sizes: readonly SizeDefinition[]): Zone[] {
  return ZONES.filter((zone) => (weights[zone] ?? 0) > 0 && !sizes.some((size) => size.measurements[zone] !== undefined));
}

/** The message of a 400 `zones_not_in_chart`, naming the zones: `type` weighs them, `where` states none of them. */
export function unstatedZonesMessage(zones: readonly Zone[], where: string, type = 'the product type'): string {
  const list = zones.length > 1 ? `${zones.slice(0, -1).join(', ')} and ${zones[zones.length - 1]}` : zones[0];
  return (
    `${type} weighs ${list}, but ${where} states no range for ${zones.length > 1 ? 'them' : 'it'}: ` +
    `use a chart that measures ${list}, or give ${zones.length > 1 ? 'them' : 'it'} the weight 0 in the product type`
  );
}

/**
 * The first of a type's or a chart's active products that would weigh zones its chart does not state, with those
 * zones, and whether other products would too; undefined when none would.
 */
export function firstMisfit(
  products: readonly { readonly title: string; readonly weights: ZoneWeights; readonly sizes: readonly SizeDefinition[] }[],
): { title: string; zones: Zone[]; others: boolean } | undefined {
  const misfits = products.flatMap((product) => {
    const zones = unstatedZones(product.weights, product.sizes);
    return zones.length ? [{ title: product.title, zones }] : [];
  });
  const [first] = misfits;
  return first && { ...first, others: misfits.length > 1 };
}
