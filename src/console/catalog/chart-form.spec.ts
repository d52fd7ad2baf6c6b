import { describe, expect, it } from '@jest/globals';
import { chartToCsv, csvToSizes, parseCsv } from './chart-form.js';

describe('size chart CSV', () => {
  it('reads quoted fields, doubled quotes, CRLF and semicolons as spreadsheets write them', () => {
    expect(parseCsv('size,chest_min\r\n"M, tall",90\r\n"say ""L""",94\r\n')).toEqual([
      ['size', 'chest_min'],
      ['M, tall', '90'],
      ['say "L"', '94'],
    ]);
    expect(parseCsv('\uFEFFsize;waist_min;waist_max\nS;60,5;64\n\n')).toEqual([
      ['size', 'waist_min', 'waist_max'],
      ['S', '60,5', '64'],
    ]);
    expect(csvToSizes('size;waist_min;waist_max\nS;60,5;64\n')).toEqual({
      ok: true,
      sizes: [{ label: 'S', measurements: { waist: { min: 60.5, max: 64 } } }],
    });
  });

  it('writes a label a spreadsheet would run as a formula quoted and prefixed, and reads its own export back', () => {
    const sizes = [
      { label: '=HYPERLINK("x")', measurements: { chest: { min: 80, max: 84 } } },
      { label: 'M, tall', measurements: { chest: { min: 84, max: 88 } } },
    ];
    const csv = chartToCsv({ sizes });
    expect(csv.split('\r\n')[1]).toBe(`"'=HYPERLINK(""x"")",80,84`);
    const back = csvToSizes(csv);
    expect(back.ok && back.sizes.map((size) => size.label)).toEqual([`'=HYPERLINK("x")`, 'M, tall']);
  });

  it('names each cell it cannot read by its row and column', () => {
    expect(csvToSizes('label,chest_min\nS,80\n')).toMatchObject({ ok: false, errors: [{ row: 1, column: 'label' }] });
    expect(csvToSizes('size,elbow_min\nS,80\n')).toMatchObject({ ok: false, errors: [{ row: 1, column: 'elbow_min' }] });
    expect(csvToSizes('size\n')).toMatchObject({ ok: false, errors: [{ message: 'The file needs a header row and at least one size' }] });
  });
});
