import { describe, expect, it } from '@jest/globals';
import { LEARNING } from '../../src/sizing/learning.js';
import type { Rental, Verdict } from './rtr.js';
import { evidenceOfRental, itemHistory, replayOffsets } from './rtr-replay.js';

const rental = (itemId: string, verdict: Verdict, day: number, category = 'dress'): Rental => ({
  verdict,
  userId: 'u',
  itemId,
  category,
  size: 8,
  weightLbs: 130,
  heightIn: 65,
  age: 30,
  bustBand: 34,
  cup: 2,
  bodyType: 'hourglass',
  at: Date.UTC(2016, 0, 1) + day * 86_400_000,
});

describe('replaying rentals', () => {
  it('reads a verdict as evidence from the size rented: small one step bigger, large one smaller', () => {
    expect(evidenceOfRental(rental('a', 'small', 0))).toEqual({
      kind: 'size_return',
      steps: 1,
      bought: 0,
      at: new Date(Date.UTC(2016, 0, 1)),
    });
    expect(evidenceOfRental(rental('a', 'large', 0)).steps).toBe(-1);
    expect(evidenceOfRental(rental('a', 'fit', 0))).toMatchObject({ kind: 'kept', steps: 0 });
  });

  it("gives each rental the offset learned from earlier rentals only, and counts the item's earlier verdicts", () => {
    const rentals = [
      ...Array.from({ length: 40 }, (_, i) => rental('runs-small', i % 4 === 0 ? 'fit' : 'small', i)),
      rental('runs-small', 'large', 41),
      rental('new', 'fit', 42),
      rental('elsewhere', 'fit', 43, 'gown'),
    ];
    const { steps, sd } = replayOffsets(rentals, LEARNING);
    expect(steps[0]).toBe(0);
    expect(steps[40]).toBeGreaterThan(0.5);
    expect(sd[40]).toBeLessThan(sd[0]);
    // a new item takes its category's offset: leaning the way of the one item that showed it, less far; a new item of
    // another category only the store's, which moves on thousands of outcomes
    expect(steps[41]).toBeGreaterThan(0.2);
    expect(steps[41]).toBeLessThan(steps[40]);
    expect(Math.abs(steps[42])).toBeLessThan(0.05);
    const history = itemHistory(rentals);
    expect(history.earlier[40]).toBe(40);
    expect(history.verdicts[40]).toEqual([30, 10, 0]);
    expect(history.earlier[41]).toBe(0);
    expect(history.verdicts[41]).toEqual([0, 0, 0]);
  });
});
