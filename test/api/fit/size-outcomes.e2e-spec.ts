/**
 * What a size is likely to turn out as, should the shopper take it (src/sizing/verdicts.ts), e2e with a known truth:
 * shoppers who take the size they usually wear find this product too small 40% of the time, those who take one size
 * up 5%; once their outcomes are in, the answer tells a new shopper so, size by size.
 */
import { describe, expect, it } from '@jest/globals';
import { useApp } from '../../support/app.js';
import { eventBody, eventsApi, uniqueId } from '../../support/event-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import {
  createQuestionnaire,
  type Recommendation,
  type Shop,
  SIZES,
  type SizeLabel,
  USUAL_SIZE_QUESTIONS,
} from '../../support/session-fixtures.js';

const BODY = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, sex: 'male' };
type Verdict = 'too_small' | 'fit' | 'too_large';

/** The truth: the chances of each verdict for a size taken at her usual size (0) or one above it (1). */
const TRUTH: Record<0 | 1, Record<Verdict, number>> = {
  0: { too_small: 0.4, fit: 0.55, too_large: 0.05 },
  1: { too_small: 0.05, fit: 0.8, too_large: 0.15 },
};

/** A small deterministic generator (mulberry32), so that the run is the same every time. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the odds of what a size turns out as', () => {
  const t = useApp();
  const { newShop, batchRaw } = eventsApi(t);
  const { start, answer, decideRaw } = sessionsApi(t);

  async function answered(shop: Shop, quiz: string, usual: SizeLabel): Promise<{ id: string; recommendation: Recommendation }> {
    const session = await start(shop, { questionnaire_id: quiz });
    const done = await answer(shop, session.id, { ...BODY, usual_size: usual });
    return { id: session.id, recommendation: done.recommendation! };
  }

  /** She answers, takes `taken`, buys it and tells `verdict`: the purchase and its outcome, to send. */
  async function shopper(shop: Shop, quiz: string, usual: SizeLabel, taken: SizeLabel, verdict: Verdict) {
    const { id } = await answered(shop, quiz, usual);
    expect((await decideRaw(shop, id, { size_label: taken })).status).toBe(200);
    const line = { order_id: uniqueId('o'), line_item_id: '1', variant_id: shop.variants[taken] };
    const later = new Date(Date.now() + 1000).toISOString();
    return [
      eventBody('purchase', shop, { ...line, session_id: id, occurred_at: new Date().toISOString() }),
      verdict === 'fit'
        ? eventBody('item_kept', shop, { ...line, occurred_at: later })
        : eventBody('return_requested', shop, { ...line, reason: 'size', fit_feedback: verdict, occurred_at: later }),
    ];
  }

  it('tells nothing before the store has outcomes, then learns the odds of each size from what shoppers took', async () => {
    const shop = await newShop();
    const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, USUAL_SIZE_QUESTIONS);
    expect((await answered(shop, quiz.id, 'M')).recommendation.outcomes).toEqual([]);

    const draw = random(36);
    const seen: Record<0 | 1, Record<Verdict, number>> = {
      0: { too_small: 0, fit: 0, too_large: 0 },
      1: { too_small: 0, fit: 0, too_large: 0 },
    };
    for (let batch = 0; batch < 8; batch++) {
      const plans = Array.from({ length: 30 }, (_, i) => {
        const usual: SizeLabel = i % 2 === 0 ? 'M' : 'L';
        const up = ((i >> 1) % 2) as 0 | 1;
        const u = draw();
        const truth = TRUTH[up];
        const verdict: Verdict = u < truth.too_small ? 'too_small' : u < truth.too_small + truth.fit ? 'fit' : 'too_large';
        seen[up][verdict]++;
        return { usual, taken: SIZES[SIZES.indexOf(usual) + up], verdict };
      });
      const events = (await Promise.all(plans.map((p) => shopper(shop, quiz.id, p.usual, p.taken, p.verdict)))).flat();
      const response = await batchRaw(shop, { events });
      expect(response.status).toBe(200);
      expect((response.body.results as { status: number }[]).every((r) => r.status === 201)).toBe(true);
    }

    const { recommendation } = await answered(shop, quiz.id, 'M');
    expect(recommendation.outcomes.map((o) => o.size_label)).toEqual([...SIZES]);
    for (const o of recommendation.outcomes) {
      expect(o.variant_id).toBe(shop.variants[o.size_label]);
      expect(o.too_small + o.fit + o.too_large).toBeCloseTo(1, 2);
    }
    const at = (label: SizeLabel) => recommendation.outcomes.find((o) => o.size_label === label)!;
    // what was seen at each place, and the truth behind it, against what the answer now says
    const share = (up: 0 | 1, v: Verdict) => seen[up][v] / (seen[up].too_small + seen[up].fit + seen[up].too_large);
    expect(Math.abs(at('M').too_small - share(0, 'too_small'))).toBeLessThan(0.1);
    expect(Math.abs(at('L').too_small - share(1, 'too_small'))).toBeLessThan(0.1);
    expect(Math.abs(at('L').fit - share(1, 'fit'))).toBeLessThan(0.1);
    expect(at('M').too_small - at('L').too_small).toBeGreaterThan(0.2);
    // a size nobody took so far from her usual one keeps the product's own rates
    expect(at('S').too_small).toBeGreaterThan(0.15);
  }, 180_000);
});
