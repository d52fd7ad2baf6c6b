import { describe, expect, it } from '@jest/globals';
import type { ExperimentResponse } from '../../experiments/dto/experiment.dto.js';
import { experimentFormValues, experimentRequest, experimentUpdate, formErrors, formValuesOf, NEW_EXPERIMENT } from './experiment-form.js';

describe('the experiment form', () => {
  it('turns a preset, points and percentages into the API’s arms and rates, the holdout compared against', () => {
    const { request, errors } = experimentRequest({
      ...NEW_EXPERIMENT,
      name: ' Returns ',
      split: 'thirds',
      minimum_effect: '2,5',
      baseline_rate: '12 %',
    });
    expect(errors).toEqual([]);
    expect(request).toEqual({
      name: 'Returns',
      arms: [
        { name: 'Size help', share: 1 / 3, treatment: 'size_help' },
        { name: 'Chart alone', share: 1 / 3, treatment: 'chart_only' },
        { name: 'No size help', share: 1 / 3, treatment: 'no_size_help' },
      ],
      control_arm: 'No size help',
      primary_metric: 'size_return_rate',
      guardrails: ['conversion'],
      minimum_effect: 0.025,
      baseline_rate: 0.12,
    });
    expect((request.arms as { share: number }[]).reduce((sum, arm) => sum + arm.share, 0)).toBe(1);
  });

  it('reads custom shares, leaving out a group at 0, and refuses shares that are not percentages adding up to 100', () => {
    const custom = (size_help: string, chart_only: string, no_size_help: string) =>
      experimentRequest({ ...NEW_EXPERIMENT, split: 'custom', shares: { size_help, chart_only, no_size_help } });
    expect(custom('80', '', '20').request).toMatchObject({
      arms: [
        { name: 'Size help', share: 0.8, treatment: 'size_help' },
        { name: 'No size help', share: 0.2, treatment: 'no_size_help' },
      ],
      control_arm: 'No size help',
    });
    // without a holdout, the first group is the one compared against
    expect(custom('50', '50', '0').request.control_arm).toBe('Size help');
    expect(custom('60', '0', '30').errors).toEqual([
      { field: 'shares', code: 'shares_not_one', message: 'The shares must add up to 100 % (they add up to 90 %)' },
    ]);
    expect(custom('100', '0', '0').errors.map((e) => e.code)).toEqual(['too_few']);
    expect(custom('half', '0', '50').errors.map((e) => e.code)).toEqual(['must_be_number']);
    expect(custom('150', '0', '-50').errors.map((e) => e.code)).toEqual(['must_be_number']);
  });

  it('reads repeated fields as lists and anything odd as text, never failing', () => {
    const values = experimentFormValues({ name: ['a', 'b'], guardrails: 'conversion', product_type_ids: ['x', 3], products: 'types' });
    expect(values).toMatchObject({ name: '', guardrails: ['conversion'], product_type_ids: ['x'], products: 'types', split: '' });
    expect(
      experimentRequest(values)
        .errors.map((e) => e.field)
        .sort(),
    ).toEqual(['minimum_effect', 'split']);
    expect(experimentFormValues({ products: 'everything' }).products).toBe('all');
  });

  it('says the API’s refusals in the form’s words, once per field', () => {
    const typed = [{ field: 'shares', code: 'too_few', message: 'Give at least two groups a share above 0' }];
    expect(
      formErrors(
        [
          { field: 'arms', code: 'required', message: 'arms is required' },
          { field: 'minimum_effect', code: 'out_of_range', message: 'minimum_effect must leave the rate between 0 and 1' },
          { field: 'product_type_ids', code: 'not_found', message: 'product_type_ids[0] names nothing of that kind' },
          { field: 'name', code: 'too_long', message: 'name must be shorter' },
        ],
        typed,
      ),
    ).toEqual([
      typed[0],
      { field: 'minimum_effect', code: 'out_of_range', message: expect.stringMatching(/^This difference would take the rate below 0 %/) },
      { field: 'product_type_ids', code: 'not_found', message: 'A chosen product type is no longer in this store: choose again' },
      { field: 'name', code: 'too_long', message: 'Give the experiment a name of up to 200 characters' },
    ]);
  });

  it('fills the form in with an experiment as it is, so that saving it unchanged sends the same design', () => {
    const experiment = (arms: ExperimentResponse['arms'], control: string, more: Partial<ExperimentResponse> = {}) =>
      ({
        name: 'Returns',
        hypothesis: null,
        arms,
        control_arm: control,
        product_ids: null,
        product_type_ids: ['t1'],
        primary_metric: 'kept_rate',
        guardrails: ['conversion'],
        minimum_effect: 0.035,
        baseline_rate: 0.6,
        ...more,
      }) as ExperimentResponse;
    const custom = experiment(
      [
        { name: 'Size help', share: 0.7, treatment: 'size_help' },
        { name: 'No size help', share: 0.3, treatment: 'no_size_help' },
      ],
      'No size help',
    );
    const values = formValuesOf(custom);
    expect(values).toMatchObject({ split: 'custom', shares: { size_help: '70', chart_only: '0', no_size_help: '30' }, products: 'types' });
    expect(experimentUpdate(values, true)).toEqual({
      request: {
        name: 'Returns',
        hypothesis: null,
        arms: custom.arms,
        control_arm: 'No size help',
        product_ids: null,
        product_type_ids: ['t1'],
        primary_metric: 'kept_rate',
        guardrails: ['conversion'],
        minimum_effect: 0.035,
        baseline_rate: 0.6,
      },
      errors: [],
    });
    // groups the form cannot make (their own names, a control that is not the holdout) are kept: no arms sent
    const own = experiment(
      [
        { name: 'learned', share: 0.5, treatment: 'size_help' },
        { name: 'chart', share: 0.5, treatment: 'chart_only' },
      ],
      'learned',
      { product_type_ids: null, product_ids: ['p1'] },
    );
    const kept = experimentUpdate(formValuesOf(own), true).request;
    expect(kept).not.toHaveProperty('arms');
    expect(kept).not.toHaveProperty('control_arm');
    expect(kept).toMatchObject({ product_ids: ['p1'], product_type_ids: null });
    // once started: the name and the hypothesis alone
    expect(experimentUpdate({ ...values, hypothesis: ' fewer ' }, false).request).toEqual({ name: 'Returns', hypothesis: 'fewer' });
  });
});
