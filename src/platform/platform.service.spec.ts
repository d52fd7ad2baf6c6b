import { describe, expect, it } from '@jest/globals';
import { callbackMessage, callbackSignature } from './platform.service.js';

describe('the platform callback signature', () => {
  it('matches the example of the platform’s documentation', () => {
    const params = new URLSearchParams(
      'code=0907a61c0c8d55e99db179b68161bc00&hmac=700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf' +
        '&shop=some-shop.myshopify.com&state=0.6784241404160823&timestamp=1337178173',
    );
    expect(callbackSignature(params, 'hush')).toBe('700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf');
  });

  it('leaves out hmac and signature, sorts by name, and escapes % and & everywhere and = in names', () => {
    const params = new URLSearchParams([
      ['shop', 'a.myshopify.com'],
      ['signature', 'legacy'],
      ['note', '50% off & more=yes'],
      ['a=b&c%', 'd'],
      ['hmac', 'x'],
    ]);
    expect(callbackMessage(params)).toBe('a%3Db%26c%25=d&note=50%25 off %26 more=yes&shop=a.myshopify.com');
  });

  it('never gives two different sets of parameters the same message', () => {
    const sets: [string, string][][] = [
      [
        ['a', '1'],
        ['b', '2'],
      ],
      [['a', '1&b=2']],
      [['a=1&b', '2']],
      [['a', '1%26b=2']],
      [
        ['a', '1'],
        ['a', '2'],
      ],
      [
        ['a', '2'],
        ['a', '1'],
      ],
      [['a', '1&a=2']],
    ];
    const messages = sets.map((set) => callbackMessage(new URLSearchParams(set)));
    expect(new Set(messages).size).toBe(sets.length);
  });
});
