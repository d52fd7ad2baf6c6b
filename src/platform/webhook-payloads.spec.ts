import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { customerOf, lineOutcomes, PayloadError, productChange } from './webhook-payloads.js';

const SESSION = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('order notifications read into line outcomes', () => {
  it('reads a paid order line by line: ids as strings or integers, the session and the customer', () => {
    const outcomes = lineOutcomes('orders/paid', {
      id: 1001,
      processed_at: '2026-12-01T10:00:00+01:00',
      customer: { id: 7310 },
      line_items: [
        {
          id: 1,
          product_id: 'p1',
          variant_id: 'v1',
          quantity: 2,
          properties: [{ name: '_size_fit_session', value: SESSION.toUpperCase() }],
        },
        { id: '2', product_id: 'p2', variant_id: 'v2', properties: [{ name: '_size_fit_session', value: 'not-a-session' }] },
      ],
    });
    expect(outcomes).toEqual([
      expect.objectContaining({
        externalId: 'purchase:1001:1',
        quantity: 2,
        sessionId: SESSION,
        customerId: '7310',
        occurredAt: '2026-12-01T09:00:00.000Z',
      }),
      expect.objectContaining({ externalId: 'purchase:1001:2', quantity: 1, sessionId: null, customerId: '7310' }),
    ]);
  });

  it('reads the size and its direction from the platform’s return and exchange reasons', () => {
    const line = { id: '1', product_id: 'p', variant_id: 'v' };
    const reasons = (topic: 'returns/requested' | 'exchanges/created', field: string, at: string, items: string) =>
      lineOutcomes(topic, {
        id: 'R',
        order_id: 'O',
        [at]: '2026-12-01T10:00:00Z',
        [items]: ['SIZE_TOO_SMALL', 'SIZE_TOO_LARGE', 'DEFECTIVE', null].map((reason, i) => ({
          id: String(i),
          [field]: reason,
          line_item: line,
        })),
      }).map((outcome) => [outcome.reason, outcome.fitFeedback]);
    const expected = [
      ['size', 'too_small'],
      ['size', 'too_large'],
      ['other', null],
      ['other', null],
    ];
    expect(reasons('returns/requested', 'return_reason', 'requested_at', 'return_line_items')).toEqual(expected);
    expect(reasons('exchanges/created', 'reason', 'created_at', 'exchange_line_items')).toEqual(expected);
  });

  it('names the field at fault in a payload without its topic’s shape', () => {
    expect(() => lineOutcomes('orders/paid', [])).toThrow(new PayloadError('the body: not an object'));
    expect(() => lineOutcomes('orders/paid', { id: 1, processed_at: 'yesterday' })).toThrow(
      new PayloadError('processed_at: not a timestamp'),
    );
    expect(() =>
      lineOutcomes('orders/paid', {
        id: 1,
        processed_at: '2026-12-01T00:00:00Z',
        line_items: [{ id: 1, product_id: '', variant_id: 'v' }],
      }),
    ).toThrow(new PayloadError('line_items[0].product_id: not an id'));
    expect(() =>
      lineOutcomes('returns/requested', { id: 1, order_id: 2, requested_at: '2026-12-01T00:00:00Z', return_line_items: [{ id: 1 }] }),
    ).toThrow(new PayloadError('return_line_items[0].line_item: not an object'));
  });

  it('reads any payload into outcomes or a PayloadError, never anything else, and the same payload the same way', () => {
    fc.assert(
      fc.property(fc.constantFrom('orders/paid', 'returns/requested', 'exchanges/created'), fc.jsonValue(), (topic, payload) => {
        let first: unknown;
        try {
          first = lineOutcomes(topic, payload);
        } catch (error) {
          expect(error).toBeInstanceOf(PayloadError);
          return;
        }
        expect(lineOutcomes(topic, structuredClone(payload))).toEqual(first);
      }),
    );
  });
});

describe('product and privacy notifications', () => {
  it('reads a product as it is now, or the id of the product deleted', () => {
    const change = productChange('products/update', {
      id: 42,
      title: 'Wrap dress',
      updated_at: '2026-06-01T10:00:00Z',
      options: [{ name: 'Taille', position: 1 }],
      variants: [{ id: 4201, option1: 'M' }],
    });
    expect(change).toEqual({
      deleted: false,
      product: expect.objectContaining({ platformId: '42', sizeOption: 'Taille', variants: [{ id: '4201', size: 'M' }] }),
    });
    expect(productChange('products/delete', { id: '42' })).toEqual({ deleted: true, platformId: '42' });
    for (const payload of [{ title: 'no id' }, { id: -1 }, [], null]) {
      expect(() => productChange('products/create', payload)).toThrow(PayloadError);
      expect(() => productChange('products/delete', payload)).toThrow(PayloadError);
    }
  });

  it('reads the customer a privacy request names', () => {
    expect(customerOf({ customer: { id: 7310 } })).toBe('7310');
    expect(() => customerOf({ customer: {} })).toThrow('customer.id: not an id');
    expect(() => customerOf({})).toThrow('customer: not an object');
  });
});
