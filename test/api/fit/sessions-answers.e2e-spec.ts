/** Fit sessions e2e: the answers refused and accepted, and the questions a questionnaire asks. */
import { describe, expect, it } from '@jest/globals';
import { bearer, useApp } from '../../support/app.js';
import { expectErrors, expectProblem } from '../../support/fixtures.js';
import { SHOPPER } from '../../support/metrics-fixtures.js';
import { sessionsApi } from '../../support/session-api.js';
import {
  content,
  createQuestionnaire,
  DEFAULT_QUESTIONS,
  expectWellFormed,
  MEASURED_QUESTIONS,
  sessionEvents,
  SIZES,
  types,
  USUAL_SIZE_QUESTIONS,
} from '../../support/session-fixtures.js';

describe('fit sessions', () => {
  const t = useApp();
  const { sessionsPath, startRaw, listRaw, answerRaw, newShop, start, answer, recommended, read } = sessionsApi(t);

  // ——— validation ———

  describe('invalid answers', () => {
    it('lists every bad answer at once and leaves a started session as it was', async () => {
      const shop = await newShop();
      const session = await start(shop);
      const response = await answerRaw(shop, session.id, {
        height: { value: 500, unit: 'cm' },
        weight: { value: 80, unit: 'stone' },
        age: 5,
        sex: 'other',
        fit_preference: 'baggy',
        chest: { value: 100, unit: 'cm' },
      });
      expectErrors(response, [
        { field: 'answers.height.value', code: 'out_of_range' },
        { field: 'answers.weight.unit', code: 'not_allowed_value' },
        { field: 'answers.age', code: 'out_of_range' },
        { field: 'answers.sex', code: 'not_allowed_value' },
        { field: 'answers.fit_preference', code: 'not_allowed_value' },
        { field: 'answers.chest', code: 'not_asked' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_started']);
    });

    it('leaves a recommended session, its answers and its recommendation as they were', async () => {
      const shop = await newShop();
      const session = await recommended(shop);
      const eventsBefore = await sessionEvents(t, session.id);
      const response = await answerRaw(shop, session.id, { height: 180, weight: { value: 10, unit: 'kg' }, age: 'old' });
      expectErrors(response, [
        { field: 'answers.height', code: 'must_be_measure' },
        { field: 'answers.weight.value', code: 'out_of_range' },
        { field: 'answers.age', code: 'must_be_number' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
      await expect(sessionEvents(t, session.id)).resolves.toEqual(eventsBefore);
    });

    it.each([
      ['a height below 100 cm', { height: { value: 99, unit: 'cm' } }, 'answers.height.value', 'out_of_range'],
      ['a height above 230 cm', { height: { value: 231, unit: 'cm' } }, 'answers.height.value', 'out_of_range'],
      ['a height of 91 in (231.1 cm)', { height: { value: 91, unit: 'in' } }, 'answers.height.value', 'out_of_range'],
      ['a height in metres', { height: { value: 1.8, unit: 'cm' } }, 'answers.height.value', 'out_of_range'],
      ['a height in feet', { height: { value: 6, unit: 'ft' } }, 'answers.height.unit', 'not_allowed_value'],
      ['a height without a unit', { height: { value: 180 } }, 'answers.height.unit', 'not_allowed_value'],
      ['a height as a string', { height: { value: '180', unit: 'cm' } }, 'answers.height.value', 'must_be_number'],
      ['a bare number for height', { height: 180 }, 'answers.height', 'must_be_measure'],
      ['a height with an extra field', { height: { value: 180, unit: 'cm', note: 'x' } }, 'answers.height', 'must_be_measure'],
      ['a weight below 30 kg', { weight: { value: 29, unit: 'kg' } }, 'answers.weight.value', 'out_of_range'],
      ['a weight above 250 kg', { weight: { value: 251, unit: 'kg' } }, 'answers.weight.value', 'out_of_range'],
      ['a weight of 552 lb (250.4 kg)', { weight: { value: 552, unit: 'lb' } }, 'answers.weight.value', 'out_of_range'],
      ['a weight of 60 lb (27.2 kg)', { weight: { value: 60, unit: 'lb' } }, 'answers.weight.value', 'out_of_range'],
      ['a weight in centimetres', { weight: { value: 80, unit: 'cm' } }, 'answers.weight.unit', 'not_allowed_value'],
      ['a negative weight', { weight: { value: -80, unit: 'kg' } }, 'answers.weight.value', 'out_of_range'],
      ['an age of 12', { age: 12 }, 'answers.age', 'out_of_range'],
      ['an age of 101', { age: 101 }, 'answers.age', 'out_of_range'],
      ['an age as a string', { age: '30' }, 'answers.age', 'must_be_number'],
      ['a sex in capitals', { sex: 'Female' }, 'answers.sex', 'not_allowed_value'],
      ['an unknown fit preference', { fit_preference: 'loose' }, 'answers.fit_preference', 'not_allowed_value'],
      ['a zone the questions do not ask', { hip: { value: 100, unit: 'cm' } }, 'answers.hip', 'not_asked'],
      ['an unknown key', { shoe_size: 42 }, 'answers.shoe_size', 'not_asked'],
      ['a custom key not asked', { 'custom:foo': 'bar' }, 'answers.custom:foo', 'not_asked'],
    ])('refuses %s with 400 naming it', async (_, bad, field, code) => {
      const shop = await newShop();
      const session = await start(shop);
      const response = await answerRaw(shop, session.id, { ...SHOPPER, ...bad });
      expectErrors(response, [{ field, code }]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it('refuses a missing required answer with 400 required', async () => {
      const shop = await newShop();
      const session = await start(shop);
      const { height: _h, weight: _w, ...rest } = SHOPPER;
      expectErrors(await answerRaw(shop, session.id, rest), [
        { field: 'answers.height', code: 'required' },
        { field: 'answers.weight', code: 'required' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it.each([
      ['answers that are not an object', { answers: [1, 2] }],
      ['answers that are a string', { answers: 'tall' }],
      ['no answers', {}],
      ['an unknown field beside the answers', { answers: SHOPPER, shopper: 'x' }],
    ])('refuses %s with 400', async (_, body) => {
      const shop = await newShop();
      const session = await start(shop);
      const response = await t
        .http()
        .post(`${sessionsPath(shop.storeId)}/${session.id}/answers`)
        .set(bearer(shop.secret))
        .send(body);
      expectProblem(response, 400, 'validation_failed');
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it.each([
      ['a height of 90 in (228.6 cm)', { height: { value: 90, unit: 'in' } }],
      ['a height of exactly 100 cm', { height: { value: 100, unit: 'cm' } }],
      ['a height of exactly 230 cm', { height: { value: 230, unit: 'cm' } }],
      ['a weight of exactly 30 kg', { weight: { value: 30, unit: 'kg' } }],
      ['a weight of exactly 250 kg', { weight: { value: 250, unit: 'kg' } }],
      ['a weight of 550 lb (249.5 kg)', { weight: { value: 550, unit: 'lb' } }],
      ['an age of 13', { age: 13 }],
      ['an age of 100', { age: 100 }],
      ['a fractional age', { age: 40.5 }],
    ])('accepts %s and recommends', async (_, answers) => {
      const shop = await newShop();
      const session = await recommended(shop, { ...SHOPPER, ...answers });
      expectWellFormed(session.recommendation, shop);
    });

    it.each([
      ['the shortest and heaviest body', { height: { value: 100, unit: 'cm' }, weight: { value: 250, unit: 'kg' } }],
      ['the tallest and lightest body', { height: { value: 230, unit: 'cm' }, weight: { value: 30, unit: 'kg' } }],
      ['the shortest and lightest body', { height: { value: 100, unit: 'cm' }, weight: { value: 30, unit: 'kg' }, age: 13 }],
      ['the tallest and heaviest body', { height: { value: 230, unit: 'cm' }, weight: { value: 250, unit: 'kg' }, age: 100 }],
      ['a very heavy woman', { height: { value: 150, unit: 'cm' }, weight: { value: 200, unit: 'kg' }, sex: 'female' }],
      ['a very light man', { height: { value: 200, unit: 'cm' }, weight: { value: 45, unit: 'kg' }, sex: 'male' }],
    ])('gives a well-formed recommendation to %s', async (_, answers) => {
      const shop = await newShop();
      const session = await recommended(shop, answers);
      expectWellFormed(session.recommendation, shop);
    });

    it.each([
      ['the smallest chest and the largest waist', { chest: { value: 50, unit: 'cm' }, waist: { value: 200, unit: 'cm' } }, 'XL'],
      ['the largest girths', { chest: { value: 200, unit: 'cm' }, waist: { value: 200, unit: 'cm' } }, 'XL'],
      ['the smallest girths', { chest: { value: 50, unit: 'cm' }, waist: { value: 40, unit: 'cm' } }, 'S'],
    ])('gives a well-formed recommendation to %s', async (_, zones, size) => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await recommended(shop, { ...SHOPPER, ...zones }, { questionnaire_id: quiz.id });
      expectWellFormed(session.recommendation, shop);
      expect(session.recommendation.size_label).toBe(size);
    });

    it('refuses a girth no human has, in either unit', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await start(shop, { questionnaire_id: quiz.id });
      expectErrors(await answerRaw(shop, session.id, { ...SHOPPER, chest: { value: 500, unit: 'cm' } }), [
        { field: 'answers.chest.value', code: 'out_of_range' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { ...SHOPPER, waist: { value: 100, unit: 'in' } }), [
        { field: 'answers.waist.value', code: 'out_of_range' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { ...SHOPPER, chest: { value: 10, unit: 'cm' } }), [
        { field: 'answers.chest.value', code: 'out_of_range' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { ...SHOPPER, chest: { value: 100, unit: 'kg' } }), [
        { field: 'answers.chest.unit', code: 'not_allowed_value' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it('reads a chest given as a bra size with its own spread, and refuses the method elsewhere', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, MEASURED_QUESTIONS);
      const session = await start(shop, { questionnaire_id: quiz.id });
      const answers = { ...SHOPPER, chest: { value: 101, unit: 'cm' }, waist: { value: 86, unit: 'cm' } };
      const tape = (await answer(shop, session.id, { ...answers, chest: { ...answers.chest, method: 'tape' } })).recommendation!;
      expect(tape.measurements.chest).toEqual({ value_cm: 101, source: 'answered', sd_cm: 1.5 });
      const braSize = await answer(shop, session.id, { ...answers, chest: { ...answers.chest, method: 'bra_size' } });
      expect(braSize.recommendation!.measurements.chest).toEqual({ value_cm: 101, source: 'answered', sd_cm: 3.5 });
      expect(braSize.recommendation!.confidence).toBeLessThan(tape.confidence);
      // kept as sent
      expect(braSize.answers?.chest).toEqual({ value: 101, unit: 'cm', method: 'bra_size' });

      expectErrors(await answerRaw(shop, session.id, { ...answers, waist: { value: 86, unit: 'cm', method: 'bra_size' } }), [
        { field: 'answers.waist.method', code: 'not_allowed_value' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { ...answers, chest: { value: 101, unit: 'cm', method: 'guess' } }), [
        { field: 'answers.chest.method', code: 'not_allowed_value' },
      ]);
      expectErrors(await answerRaw(shop, session.id, { ...answers, chest: { value: 101, unit: 'cm', how: 'tape' } }), [
        { field: 'answers.chest', code: 'must_be_measure' },
      ]);
    });

    it('refuses answers that say nothing of the body, naming height and weight; answers from any part of it', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: false },
        { key: 'weight', required: false },
        { key: 'age', required: false },
        { key: 'sex', required: false },
        { key: 'chest', required: false },
        { key: 'waist', required: false },
        { key: 'usual_size', required: false },
      ]);
      const session = await start(shop, { questionnaire_id: quiz.id });
      for (const nothing of [{ sex: 'female', age: 30 }, {}, { usual_size: 'not a size of this chart' }]) {
        expectErrors(await answerRaw(shop, session.id, nothing), [
          { field: 'answers.height', code: 'needed_for_recommendation' },
          { field: 'answers.weight', code: 'needed_for_recommendation' },
        ]);
      }
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_started']);

      const chart: readonly string[] = SIZES;
      for (const part of [
        { weight: { value: 70, unit: 'kg' }, chest: { value: 98, unit: 'cm' } },
        { height: { value: 170, unit: 'cm' }, waist: { value: 80, unit: 'cm' } },
        { chest: { value: 98, unit: 'cm' } },
        { usual_size: chart[1] },
      ]) {
        const answered = await answer(shop, session.id, part);
        const recommendation = answered.recommendation!;
        expect(chart).toContain(recommendation.size_label);
        expect(recommendation.confidence).toBeGreaterThan(0);
        expect(recommendation.confidence).toBeLessThan(1);
      }
      // a usual size alone: that size, as sure as a usual size is, and no body measurement claimed
      const usual = (await answer(shop, session.id, { usual_size: chart[1] })).recommendation!;
      expect(usual.size_label).toBe(chart[1]);
      expect(usual.measurements).toEqual({});
    });
  });

  // ——— questionnaires ———

  describe('questionnaires', () => {
    it('asks the questions of the questionnaire named, at its version', async () => {
      const shop = await newShop();
      const questions = [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'chest', required: true },
        { key: 'custom:foo', required: false },
      ];
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, questions);
      const session = await start(shop, { questionnaire_id: quiz.id });
      expect(session).toMatchObject({ questionnaire_id: quiz.id, questionnaire_version: quiz.version, questions, state: 'started' });
    });

    it('refuses to start a session its questionnaire could never answer, and starts one that asks anything of the body', async () => {
      const shop = await newShop();
      const nothingOfTheBody = [
        { key: 'age', required: true },
        { key: 'sex', required: false },
        { key: 'custom:occasion', required: false },
      ];
      const aboutNothing = await createQuestionnaire(t, shop.storeId, shop.secret, nothingOfTheBody);
      const refused = await startRaw(shop, { product_id: shop.productId, questionnaire_id: aboutNothing.id });
      expectErrors(refused, [{ field: 'questionnaire_id', code: 'cannot_recommend' }]);
      expect(refused.body.errors[0].message).toContain('usual_size');
      // the store's default questionnaire is judged alike
      const setDefault = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/questionnaires`)
        .set(bearer(shop.secret))
        .send({ name: 'About nothing', questions: nothingOfTheBody, default: true });
      expect(setDefault.status).toBe(201);
      expectErrors(await startRaw(shop, { product_id: shop.productId }), [{ field: 'questionnaire_id', code: 'cannot_recommend' }]);
      expect((await listRaw(shop)).body.data).toEqual([]);

      // a zone the sizes depend on, or a size usually worn: a recommendation can be made
      for (const asked of ['chest', 'usual_size']) {
        const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [{ key: asked, required: true }]);
        await start(shop, { questionnaire_id: quiz.id });
      }
      const zones = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'chest', required: true },
        { key: 'waist', required: true },
      ]);
      const session = await start(shop, { questionnaire_id: zones.id });
      const answered = await answer(shop, session.id, { chest: { value: 98, unit: 'cm' }, waist: { value: 84, unit: 'cm' } });
      expect(answered.recommendation?.size_label).toEqual(expect.any(String));
      const body = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: false },
        { key: 'weight', required: false },
      ]);
      expect((await startRaw(shop, { product_id: shop.productId, questionnaire_id: body.id })).status).toBe(201);
    });

    it('refuses answers without a required chest, and answers the questionnaire does not ask', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'chest', required: true },
        { key: 'custom:foo', required: false },
      ]);
      const session = await start(shop, { questionnaire_id: quiz.id });
      const body = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' } };

      expectErrors(await answerRaw(shop, session.id, body), [{ field: 'answers.chest', code: 'required' }]);
      expectErrors(
        await answerRaw(shop, session.id, { ...body, chest: { value: 98, unit: 'cm' }, sex: 'male', waist: { value: 80, unit: 'cm' } }),
        [
          { field: 'answers.sex', code: 'not_asked' },
          { field: 'answers.waist', code: 'not_asked' },
        ],
      );
      expectErrors(await answerRaw(shop, session.id, { ...body, age: 30 }), [
        { field: 'answers.chest', code: 'required' },
        { field: 'answers.age', code: 'not_asked' },
      ]);
      await expect(read(shop, session.id)).resolves.toEqual(session);
      expect(types(await sessionEvents(t, session.id))).toEqual(['fit_started']);
    });

    it('weighs the sizes by the size she usually wears, where the chart has it, and refuses one that is not a label', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, USUAL_SIZE_QUESTIONS);
      const body = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, sex: 'male' };
      const answered = async (extra: Record<string, unknown>) => {
        const session = await start(shop, { questionnaire_id: quiz.id });
        return answer(shop, session.id, { ...body, ...extra });
      };
      const plain = (await answered({})).recommendation!;
      const labels = ['S', 'M', 'L', 'XL'];
      // a size two below the body's answer: the recommendation moves down, or at least grows less sure
      const below = labels[Math.max(0, labels.indexOf(plain.size_label) - 2)];
      const named = (await answered({ usual_size: ` ${below.toLowerCase()} ` })).recommendation!;
      expect(named.size_label !== plain.size_label || named.confidence < plain.confidence).toBe(true);
      expect(labels.indexOf(named.size_label)).toBeLessThanOrEqual(labels.indexOf(plain.size_label));
      // another size system tells nothing
      const foreign = (await answered({ usual_size: '38' })).recommendation!;
      expect(foreign).toMatchObject({ size_label: plain.size_label, confidence: plain.confidence });

      const session = await start(shop, { questionnaire_id: quiz.id });
      for (const bad of [42, '', '   ', 'x'.repeat(51), { label: 'M' }]) {
        expectErrors(await answerRaw(shop, session.id, { ...body, usual_size: bad }), [
          { field: 'answers.usual_size', code: 'must_be_size_label' },
        ]);
      }
    });

    it('stores custom answers and returns them, without letting them change the recommendation', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'chest', required: true },
        { key: 'custom:foo', required: false },
        { key: 'custom:likes_oversized', required: false },
      ]);
      const base = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' }, chest: { value: 98, unit: 'cm' } };
      const answers = { ...base, 'custom:foo': 'bar', 'custom:likes_oversized': true };
      const withCustom = await recommended(shop, answers, { questionnaire_id: quiz.id });
      expect(withCustom.answers).toEqual(answers);
      expect((await read(shop, withCustom.id)).answers).toEqual(answers);
      expectWellFormed(withCustom.recommendation, shop);
      expect(withCustom.recommendation.measurements.chest.source).toBe('answered');

      const without = await recommended(shop, base, { questionnaire_id: quiz.id });
      expect(content(without.recommendation)).toEqual(content(withCustom.recommendation));
    });

    it('refuses a custom answer that is not a number, a boolean or a short string', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'custom:foo', required: false },
      ]);
      const session = await start(shop, { questionnaire_id: quiz.id });
      const base = { height: { value: 178, unit: 'cm' }, weight: { value: 76, unit: 'kg' } };
      for (const bad of [{ nested: true }, ['a'], 'x'.repeat(501), null]) {
        expectErrors(await answerRaw(shop, session.id, { ...base, 'custom:foo': bad }), [
          { field: 'answers.custom:foo', code: 'invalid_custom_answer' },
        ]);
      }
      await expect(read(shop, session.id)).resolves.toEqual(session);
    });

    it("uses the store's default questionnaire when the session names none", async () => {
      const shop = await newShop();
      const questions = [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'waist', required: true },
      ];
      const created = await t
        .http()
        .post(`/v1/stores/${shop.storeId}/questionnaires`)
        .set(bearer(shop.secret))
        .send({ name: 'Default quiz', questions, default: true });
      expect(created.status).toBe(201);
      const session = await start(shop);
      expect(session).toMatchObject({ questionnaire_id: created.body.id, questionnaire_version: 1, questions });
      expectErrors(await answerRaw(shop, session.id, SHOPPER), [
        { field: 'answers.waist', code: 'required' },
        { field: 'answers.age', code: 'not_asked' },
        { field: 'answers.sex', code: 'not_asked' },
        { field: 'answers.fit_preference', code: 'not_asked' },
      ]);
    });

    it('keeps the questions a session started with when the questionnaire is edited later', async () => {
      const shop = await newShop();
      const quiz = await createQuestionnaire(t, shop.storeId, shop.secret, DEFAULT_QUESTIONS);
      const session = await start(shop, { questionnaire_id: quiz.id });
      const edited = await t
        .http()
        .patch(`/v1/stores/${shop.storeId}/questionnaires/${quiz.id}`)
        .set(bearer(shop.secret))
        .send({ questions: [...DEFAULT_QUESTIONS, { key: 'chest', required: true }] });
      expect(edited.status).toBe(200);
      expect(edited.body.version).toBe(quiz.version + 1);

      const answered = await answer(shop, session.id, SHOPPER);
      expect(answered).toMatchObject({ questionnaire_version: quiz.version, questions: DEFAULT_QUESTIONS, state: 'recommended' });
      const later = await start(shop, { questionnaire_id: quiz.id });
      expect(later.questionnaire_version).toBe(quiz.version + 1);
      expectErrors(await answerRaw(shop, later.id, SHOPPER), [{ field: 'answers.chest', code: 'required' }]);
    });
  });
});
