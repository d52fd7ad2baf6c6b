import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { validateObject } from '../../common/validation/validation.pipe.js';
import { EventRequest } from './event.dto.js';
import { readWellFormedEvent } from './event-fast-path.js';

const ascii = (min: number, max: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: min, maxLength: max });
const id = fc.uuid({ version: [1, 4, 7] });
/** A valid event, as integrations send them. */
const valid = fc.record(
  {
    source: ascii(1, 100),
    external_id: ascii(1, 200),
    type: fc.constantFrom('purchase', 'add_to_cart', 'checkout_started', 'fit_viewed'),
    product_id: fc.option(id),
    variant_id: fc.option(id),
    session_id: fc.option(id),
    order_id: fc.option(ascii(1, 200)),
    line_item_id: fc.option(ascii(1, 200)),
    reason: fc.option(fc.constantFrom('size', 'other')),
    fit_feedback: fc.option(fc.constantFrom('too_small', 'too_large')),
    new_variant_id: fc.option(id),
    quantity: fc.option(fc.integer({ min: 1, max: 1_000_000 })),
    occurred_at: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  },
  { requiredKeys: ['source', 'external_id', 'type', 'occurred_at'] },
);
/** Values on and just past every rule's edge. */
const edge = fc.constantFrom<unknown>(
  undefined,
  null,
  '',
  ' ',
  '\t',
  '  x  ',
  'x'.repeat(100),
  'x'.repeat(101),
  'x'.repeat(200),
  'x'.repeat(201),
  '\uFE0F',
  'a\uFE0F',
  'é',
  '😀',
  'a\u0000b',
  0,
  1,
  -1,
  1.5,
  1_000_000,
  1_000_001,
  Number.NaN,
  true,
  [],
  {},
  ['a'],
  'size',
  'SIZE',
  'other',
  'too_small',
  'TOO_LARGE',
  '01a20254-d8bf-7601-a38a-5218407400a1',
  '01A20254-D8BF-7601-A38A-5218407400A1',
  '01a20254-d8bf-9601-a38a-5218407400a1',
  '01a20254-d8bf-7601-c38a-5218407400a1',
  '00000000-0000-0000-0000-000000000000',
  'not-a-uuid',
  '2026-02-30T00:00:00Z',
  '2026-11-22T10:00:00+01:00',
  '2026-11-22T10:00:00',
  '2026-11-22t10:00:00z',
  '2026-11-22T24:00:00Z',
  '2026-11-22T10:00:00.1234567Z',
  'yesterday',
);
const FIELDS = [
  'source',
  'external_id',
  'type',
  'product_id',
  'variant_id',
  'session_id',
  'order_id',
  'line_item_id',
  'reason',
  'fit_feedback',
  'new_variant_id',
  'quantity',
  'occurred_at',
  'extra',
  '__proto__',
];
const events = fc.tuple(valid, fc.array(fc.tuple(fc.constantFrom(...FIELDS), edge), { maxLength: 2 })).map(([event, changes]) => {
  const out: Record<string, unknown> = { ...event };
  for (const [key, value] of changes) {
    if (value === undefined) delete out[key];
    else Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
});

describe('readWellFormedEvent', () => {
  it('accepts only what class-validator accepts, with the same values', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(events, async (event) => {
        const fast = readWellFormedEvent(event);
        if (fast === null) return;
        accepted++;
        const read = await validateObject(EventRequest, event);
        expect(read.ok).toBe(true);
        if (read.ok) expect({ ...fast }).toEqual({ ...read.value });
      }),
      { numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(1000); // the property is not vacuous
  });

  it('leaves refusals to class-validator', () => {
    const at = '2026-11-22T10:00:00.123Z';
    expect(readWellFormedEvent({ source: 'shop', external_id: 'a-1', type: 'add_to_cart', occurred_at: at })).not.toBeNull();
    expect(readWellFormedEvent({ source: ' ', external_id: 'a-1', type: 'add_to_cart', occurred_at: at })).toBeNull();
    expect(readWellFormedEvent({ source: 'shop', external_id: 'a-1', type: 'add_to_cart', occurred_at: at, extra: 1 })).toBeNull();
    expect(readWellFormedEvent({ source: 'shop', external_id: 'a-1', type: 'add_to_cart' })).toBeNull();
  });
});
