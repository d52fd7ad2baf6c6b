/**
 * How a store's answers learn to read its shoppers, e2e (src/sizing/answer-link.ts): lines bought after a fit session
 * teach, per store, where shoppers' sizes lay against what their answers read; once enough have, the answers follow.
 */
import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { useApp } from '../../support/app.js';
import { eventBody, eventsApi, uniqueId } from '../../support/event-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import { createQuestionnaire, type Shop, SIZES, USUAL_SIZE_QUESTIONS } from '../../support/session-fixtures.js';
import { growth, LEARNING } from '../../../src/sizing/learning.js';

/** What an outcome of now weighs in the stored sums. */
const grown = () => growth(new Date(), LEARNING.tauDays);

const BODY = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, sex: 'male' };
type Size = (typeof SIZES)[number];

describe('answers that learn how a store should read its shoppers', () => {
  const t = useApp();
  const { newShop, batchRaw } = eventsApi(t);
  const { start, answer } = sessionsApi(t);
  const links = async (storeId: string) =>
    (await t.app
      .get(DataSource)
      .query(`SELECT kind, outcomes, weight FROM fit_answer_links WHERE store_id = $1 ORDER BY kind`, [storeId])) as {
      kind: string;
      outcomes: number;
      weight: number;
    }[];

  /** A session answered with the body and `usual`, its id and recommendation. */
  async function answered(shop: Shop, questionnaireId: string, usual: Size) {
    const session = await start(shop, { questionnaire_id: questionnaireId });
    const done = await answer(shop, session.id, { ...BODY, usual_size: usual });
    return { id: session.id, recommendation: done.recommendation! };
  }

  /** A line bought after `sessionId` in `size`, with its outcomes (in order: later ones replace earlier ones). */
  const line = (shop: Shop, sessionId: string, size: Size, outcomes: readonly ('item_kept' | 'too_small')[]) => {
    const base = { order_id: uniqueId('o'), line_item_id: uniqueId('l'), variant_id: shop.variants[size] };
    // after the session, in order (five minutes ahead at most is allowed)
    const at = (k: number) => new Date(Date.now() + k * 1000).toISOString();
    return [
      eventBody('purchase', shop, { ...base, session_id: sessionId, occurred_at: at(0) }),
      ...outcomes.map((o, k) =>
        o === 'item_kept'
          ? eventBody('item_kept', shop, { ...base, occurred_at: at(k + 1) })
          : eventBody('return_requested', shop, { ...base, reason: 'size', fit_feedback: 'too_small', occurred_at: at(k + 1) }),
      ),
    ];
  };

  async function send(shop: Shop, events: unknown[]) {
    const response = await batchRaw(shop, { events });
    expect(response.status).toBe(200);
    expect((response.body.results as { status: number }[]).every((r) => r.status === 201)).toBe(true);
  }

  it("answers where shoppers' sizes lay once their outcomes show what their answers mean", async () => {
    const shop = await newShop();
    const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, USUAL_SIZE_QUESTIONS);
    // the body alone says L, and these shoppers say they wear XL; they keep the M
    const before = (await answered(shop, quiz.id, 'XL')).recommendation;
    expect(before.adjustment?.chart_size_label).toBe('L');
    expect(['L', 'XL']).toContain(before.size_label);
    expect(before.model_version).not.toContain('link');

    for (let batch = 0; batch < 5; batch++) {
      const events = [];
      for (let i = 0; i < 30; i++) events.push(...line(shop, (await answered(shop, quiz.id, 'XL')).id, 'M', ['item_kept']));
      await send(shop, events);
    }
    expect(await links(shop.storeId)).toEqual([{ kind: 'both', outcomes: 150, weight: expect.closeTo(150 * grown(), 0) }]);

    const after = (await answered(shop, quiz.id, 'XL')).recommendation;
    expect(after.size_label).toBe('M');
    expect(after.model_version).toMatch(/\+link\.both\.150$/);
    // the body alone, with no usual size, is a kind of its own that nothing has taught yet
    const bodyOnly = await answer(shop, (await start(shop, { questionnaire_id: quiz.id })).id, BODY);
    expect(bodyOnly.recommendation!.model_version).not.toContain('link');
  });

  it('counts a line once, through its latest outcome, and nothing of lines bought without a session', async () => {
    const shop = await newShop();
    const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, USUAL_SIZE_QUESTIONS);
    const first = await answered(shop, quiz.id, 'M');
    const second = await answered(shop, quiz.id, 'M');
    const unassisted = { order_id: uniqueId('o'), line_item_id: uniqueId('l'), variant_id: shop.variants.M };
    await send(shop, [
      ...line(shop, first.id, 'M', ['item_kept', 'too_small', 'item_kept']),
      ...line(shop, second.id, 'M', ['too_small']),
      eventBody('purchase', shop, unassisted),
      eventBody('item_kept', shop, unassisted),
    ]);
    const [both] = await links(shop.storeId);
    expect(both).toMatchObject({ kind: 'both', outcomes: 2 });
    // stored grown by the outcomes' dates, as every sum of learning (learning.ts)
    expect(both.weight / grown()).toBeCloseTo(2, 3);
  });
});
