/** Fit sessions e2e: the size recommended for measured and partial answers, and what the product and its chart change. */
import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { expectErrors, TIMESTAMP } from '../../support/fixtures.js';
import { createProduct, createVariant } from '../../support/catalog-fixtures.js';
import { SHOPPER } from '../../support/metrics-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import {
  content,
  createQuestionnaire,
  DEFAULT_QUESTIONS,
  expectWellFormed,
  MEASURED_QUESTIONS,
  type Recommendation,
  type Session,
  sessionEvents,
  type SizeLabel,
  SIZES,
} from '../../support/session-fixtures.js';

describe('fit sessions', () => {
  const t = useApp();
  const { startRaw, decideRaw, listRaw, newShop, start, answer, recommended, read } = sessionsApi(t);

  const rank = (label: string) => SIZES.indexOf(label as SizeLabel);

  // ——— measured answers ———

  describe('measured answers', () => {
    it('recommends M for a chest and waist measured inside M, and says they were answered', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await recommended(
        shop,
        { ...SHOPPER, chest: { value: 98, unit: 'cm' }, waist: { value: 83, unit: 'cm' } },
        { questionnaire_id: quiz.id },
      );
      const r = session.recommendation;
      expectWellFormed(r, shop);
      expect(r.size_label).toBe('M');
      expect(r.variant_id).toBe(shop.variants.M);
      expect(r.warnings).toEqual([]);
      expect(r.measurements.chest).toMatchObject({ value_cm: 98, source: 'answered' });
      expect(r.measurements.waist).toMatchObject({ value_cm: 83, source: 'answered' });
      // right in the middle of M in both zones, a tape measure away from S and L
      expect(r.fit).toEqual({ chest: 'regular', waist: 'regular' });
      expect(r.confidence).toBeGreaterThan(0.9);
    });

    it('gives the same size for the same measurements in inches', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const inCm = await recommended(
        shop,
        { ...SHOPPER, chest: { value: 97.79, unit: 'cm' }, waist: { value: 82.55, unit: 'cm' } },
        { questionnaire_id: quiz.id },
      );
      const inInches = await recommended(
        shop,
        { ...SHOPPER, height: { value: 70.08, unit: 'in' }, chest: { value: 38.5, unit: 'in' }, waist: { value: 32.5, unit: 'in' } },
        { questionnaire_id: quiz.id },
      );
      expectWellFormed(inInches.recommendation, shop);
      expect(inInches.recommendation.size_label).toBe('M');
      expect(inInches.recommendation.size_label).toBe(inCm.recommendation?.size_label);
      expect(inInches.recommendation.measurements.chest.source).toBe('answered');
      // reported to a tenth of a centimetre
      expect(inInches.recommendation.measurements.chest.value_cm).toBeCloseTo(97.79, 1);
      expect(inInches.recommendation.measurements.waist.value_cm).toBeCloseTo(82.55, 1);
      expect(inInches.recommendation.measurements).toEqual(inCm.recommendation?.measurements);
      expect(inInches.recommendation.confidence).toBeCloseTo(inCm.recommendation?.confidence as number, 3);
      expect(inInches.answers).toMatchObject({ chest: { value: 38.5, unit: 'in' } });
    });

    it('answers the same recommendation to the same answers, on one session or another', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const answers = { ...SHOPPER, chest: { value: 101, unit: 'cm' }, waist: { value: 80, unit: 'cm' } };
      const first = await recommended(shop, answers, { questionnaire_id: quiz.id });
      const again = await answer(shop, first.id, answers);
      const elsewhere = await recommended(shop, answers, { questionnaire_id: quiz.id });

      expect(again.recommendation?.id).not.toBe(first.recommendation?.id);
      expect(content(again.recommendation)).toEqual(content(first.recommendation));
      expect(content(elsewhere.recommendation)).toEqual(content(first.recommendation));

      const estimated = await recommended(shop);
      const estimatedAgain = await recommended(shop);
      expect(content(estimatedAgain.recommendation)).toEqual(content(estimated.recommendation));
    });

    it('recommends from measured chest and waist alone, without height or weight', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: false },
        { key: 'weight', required: false },
        { key: 'chest', required: true },
        { key: 'waist', required: true },
      ]);
      const session = await recommended(
        shop,
        { chest: { value: 106, unit: 'cm' }, waist: { value: 91, unit: 'cm' } },
        { questionnaire_id: quiz.id },
      );
      expectWellFormed(session.recommendation, shop);
      expect(session.recommendation.size_label).toBe('L');
      expect(session.recommendation.measurements.chest).toMatchObject({ value_cm: 106, source: 'answered' });
      expect(session.recommendation.measurements.waist).toMatchObject({ value_cm: 91, source: 'answered' });
    });

    it('estimates the zones left unanswered from the ones answered', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await recommended(shop, { ...SHOPPER, chest: { value: 99, unit: 'cm' } }, { questionnaire_id: quiz.id });
      expectWellFormed(session.recommendation, shop);
      expect(session.recommendation.measurements.chest).toMatchObject({ value_cm: 99, source: 'answered' });
      expect(session.recommendation.measurements.waist.source).toBe('estimated');
    });

    it('prefers the smallest size that contains every weighted zone when the zones disagree', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      // chest in the middle of S, waist in the middle of L: S and M would be too small at the waist
      const session = await recommended(
        shop,
        { ...SHOPPER, chest: { value: 90, unit: 'cm' }, waist: { value: 91, unit: 'cm' } },
        { questionnaire_id: quiz.id },
      );
      expectWellFormed(session.recommendation, shop);
      expect(session.recommendation.size_label).toBe('L');
      expect(session.recommendation.fit.waist).toBe('regular');
      expect(['loose', 'too_large']).toContain(session.recommendation.fit.chest);
    });
  });

  describe('what the product and its chart change', () => {
    it('reads a size chart written in inches in centimetres', async () => {
      const shop = await newShop();
      const inches = (lo: number, hi: number) => ({ min: lo, max: hi });
      const chart = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/size-charts`)
        .set(bearer(shop.secret))
        .send({
          name: 'Inch chart',
          unit: 'in',
          measurement_type: 'body',
          sizes: [
            { label: 'S', measurements: { chest: inches(34, 37), waist: inches(28, 31) } },
            { label: 'M', measurements: { chest: inches(37, 40), waist: inches(31, 34) } },
            { label: 'L', measurements: { chest: inches(40, 43), waist: inches(34, 37) } },
          ],
        });
      expect(chart.status).toBe(201);
      const product = (
        await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: chart.body.id })
      ).id;
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const sizeFor = async (chest: number, waist: number) => {
        const session = await recommended(
          shop,
          { ...SHOPPER, chest: { value: chest, unit: 'cm' }, waist: { value: waist, unit: 'cm' } },
          { product_id: product, questionnaire_id: quiz.id },
        );
        return session.recommendation;
      };
      // M is 93.98–101.6 cm at the chest and 78.74–86.36 cm at the waist
      await expect(sizeFor(97.8, 82.5)).resolves.toMatchObject({ size_label: 'M', variant_id: null });
      await expect(sizeFor(91, 76)).resolves.toMatchObject({ size_label: 'S' });
      await expect(sizeFor(102.5, 82.5)).resolves.toMatchObject({ size_label: 'L' });
      await expect(sizeFor(97.8, 87)).resolves.toMatchObject({ size_label: 'L' });
    });

    it('recommends a bigger size when the product runs small', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const answers = { ...SHOPPER, chest: { value: 101, unit: 'cm' }, waist: { value: 86, unit: 'cm' } };
      const sizeWhen = async (fitAdjustment: string) => {
        const patched = await t
          .http()
          .patch(`/v1/stores/${shop.storeId}/products/${shop.productId}`)
          .set(bearer(shop.secret))
          .send({ fit_adjustment: fitAdjustment });
        expect(patched.status).toBe(200);
        return (await recommended(shop, answers, { questionnaire_id: quiz.id })).recommendation?.size_label;
      };
      await expect(sizeWhen('true_to_size')).resolves.toBe('M');
      await expect(sizeWhen('runs_small')).resolves.toBe('L');
      await expect(sizeWhen('runs_large')).resolves.toBe('M');
    });

    it('recommends a size the product has no variant of with variant_id null, and records a decision on it', async () => {
      const shop = await newShop();
      const bare = (
        await createProduct(t, shop.secret, shop.storeId, { product_type_id: shop.productTypeId, size_chart_id: shop.sizeChartId })
      ).id;
      const onlyS = (await createVariant(t, shop.secret, shop.storeId, bare, { size_label: 'S' })).id;
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await recommended(
        shop,
        { ...SHOPPER, chest: { value: 101, unit: 'cm' }, waist: { value: 86, unit: 'cm' } },
        { product_id: bare, questionnaire_id: quiz.id },
      );
      expect(session.recommendation).toMatchObject({
        size_label: 'M',
        variant_id: null,
        warnings: [{ code: 'no_variant', message: 'The product has no variant in size M: it cannot be bought in that size yet' }],
      });
      for (const alternative of session.recommendation?.alternatives ?? []) {
        expect(alternative.variant_id).toBe(alternative.size_label === 'S' ? onlyS : null);
      }

      const decided = await decideRaw(shop, session.id, { size_label: 'M' });
      expect(decided.status).toBe(200);
      expect(decided.body).toMatchObject({ outcome: 'accepted', decision: { size_label: 'M', variant_id: null, outcome: 'accepted' } });
      const events = await sessionEvents(t, session.id);
      expect(events.find((e) => e.type === 'recommendation_generated')?.variant_id).toBeNull();
      expect(events.find((e) => e.type === 'recommendation_accepted')?.variant_id).toBeNull();
    });

    it('refuses to start a session on an archived product or questionnaire, and keeps the sessions already started', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, DEFAULT_QUESTIONS);
      const session = await recommended(shop, SHOPPER, { questionnaire_id: quiz.id });

      const quizGone = await t.http().delete(`/v1/stores/${shop.storeId}/questionnaires/${quiz.id}`).set(bearer(shop.secret));
      expect(quizGone.status).toBe(200);
      expectErrors(await startRaw(shop, { product_id: shop.productId, questionnaire_id: quiz.id }), [
        { field: 'questionnaire_id', code: 'archived' },
      ]);

      const productGone = await t.http().delete(`/v1/stores/${shop.storeId}/products/${shop.productId}`).set(bearer(shop.secret));
      expect(productGone.status).toBe(200);
      expect(productGone.body.archived_at).toMatch(TIMESTAMP);
      expectErrors(await startRaw(shop, { product_id: shop.productId }), [{ field: 'product_id', code: 'archived' }]);

      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect((await listRaw(shop)).body.data.map((s: Session) => s.id)).toEqual([session.id]);
    });
  });

  // ——— incomplete profiles ———

  describe('what the engine makes of a partial profile', () => {
    it('recommends without sex and age, estimating every zone', async () => {
      const shop = await newShop();
      const session = await recommended(shop, { height: { value: 170, unit: 'cm' }, weight: { value: 68, unit: 'kg' } });
      expectWellFormed(session.recommendation, shop);
      for (const zone of ['chest', 'waist']) expect(session.recommendation.measurements[zone].source).toBe('estimated');
    });

    it('gives a valid recommendation for an unknown sex, a woman and a man of the same height and weight', async () => {
      const shop = await newShop();
      const base = { height: { value: 170, unit: 'cm' }, weight: { value: 70, unit: 'kg' }, age: 40 };
      const results: Record<string, Recommendation> = {};
      for (const sex of ['unknown', 'female', 'male']) {
        const session = await recommended(shop, sex === 'unknown' ? base : { ...base, sex });
        expectWellFormed(session.recommendation, shop);
        results[sex] = session.recommendation;
      }
      // the unknown sex is a mixture of the two, so its estimate lies between theirs
      for (const zone of ['chest', 'waist']) {
        const [f, m, u] = [results.female, results.male, results.unknown].map((r) => r.measurements[zone].value_cm);
        expect(u).toBeGreaterThanOrEqual(Math.min(f, m) - 0.5);
        expect(u).toBeLessThanOrEqual(Math.max(f, m) + 0.5);
      }
    });

    it('recommends for every preference and the tighter preference never gets a bigger size than looser', async () => {
      const shop = await newShop();
      const sizes: Record<string, string> = {};
      for (const preference of ['tighter', 'regular', 'looser']) {
        const session = await recommended(shop, { ...SHOPPER, fit_preference: preference });
        expectWellFormed(session.recommendation, shop);
        sizes[preference] = session.recommendation.size_label;
      }
      expect(rank(sizes.tighter)).toBeLessThanOrEqual(rank(sizes.regular));
      expect(rank(sizes.regular)).toBeLessThanOrEqual(rank(sizes.looser));
    });
  });

  describe('a bigger body', () => {
    it.each([
      ['an unknown sex', {}],
      ['a woman', { sex: 'female' }],
      ['a man', { sex: 'male' }],
    ])('never gets a smaller size as the weight grows from 60 to 120 kg, for %s', async (_, extra) => {
      const shop = await newShop();
      const session = await start(shop);
      for (const cm of [160, 175, 190]) {
        const sizes: { kg: number; size: string }[] = [];
        for (let kg = 60; kg <= 120; kg += 5) {
          const answered = await answer(shop, session.id, {
            height: { value: cm, unit: 'cm' },
            weight: { value: kg, unit: 'kg' },
            ...extra,
          });
          expectWellFormed(answered.recommendation, shop);
          sizes.push({ kg, size: answered.recommendation.size_label });
        }
        const shrinks = sizes.filter((s, i) => i > 0 && rank(s.size) < rank(sizes[i - 1].size));
        expect({ height: cm, shrinks }).toEqual({ height: cm, shrinks: [] });
        expect(rank(sizes[sizes.length - 1].size)).toBeGreaterThan(rank(sizes[0].size));
      }
    });
  });
});
