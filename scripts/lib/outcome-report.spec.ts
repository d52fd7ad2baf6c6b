import { describe, expect, it } from '@jest/globals';
import { figuresOf, groupsOf, historyBucket, replaceSection, type ScoredRental } from './outcome-report.js';

const MARKERS = { begin: '<!-- x:start -->', end: '<!-- x:end -->' };

describe('the report', () => {
  it('puts a new section before the heading named, then replaces only what lies between its markers', () => {
    const doc = '# Title\n\nIntro.\n\n## Next\n\nText.\n';
    const once = replaceSection(doc, MARKERS, 'one', '## Section\n\nWhy.\n\n{generated}', '## Next');
    expect(once).toBe('# Title\n\nIntro.\n\n## Section\n\nWhy.\n\n<!-- x:start -->\none\n<!-- x:end -->\n\n## Next\n\nText.\n');
    const twice = replaceSection(once.replace('Why.', 'Why, edited.'), MARKERS, 'two', 'unused', '## Next');
    expect(twice).toBe('# Title\n\nIntro.\n\n## Section\n\nWhy, edited.\n\n<!-- x:start -->\ntwo\n<!-- x:end -->\n\n## Next\n\nText.\n');
    expect(() => replaceSection('<!-- x:start -->', MARKERS, '', '', '## Next')).toThrow();
  });

  it('buckets items by their earlier rentals', () => {
    expect([0, 1, 4, 5, 19, 20, 99, 100, 5000].map(historyBucket)).toEqual([
      '0',
      '1–4',
      '1–4',
      '5–19',
      '5–19',
      '20–99',
      '20–99',
      '100+',
      '100+',
    ]);
  });

  it('scores groups, leaving out those without rentals', () => {
    const row = (verdict: 'small' | 'fit' | 'large', returning: boolean): ScoredRental => ({
      verdict,
      itemEarlier: 3,
      returning,
      month: '2017-01',
      given: { heightWeight: true, chest: true, usualSize: returning },
      predictions: {
        outcomes: [0.15, 0.7, 0.15],
        service: [0.2, 0.6, 0.2],
        'item & customer': [0.1, 0.8, 0.1],
        'item rates': [0.1, 0.8, 0.1],
        'global shares': [0.13, 0.74, 0.13],
      },
      facts: { confidence: 0.5, rentedRecommended: verdict === 'fit' },
      offset: verdict === 'small' ? 0.5 : verdict === 'large' ? -0.5 : 0,
    });
    const rows = [row('fit', false), row('small', true), row('large', true), row('fit', true)];
    const groups = groupsOf(rows, (r) => (r.returning ? 'returning' : 'new'), ['new', 'returning', 'nobody']);
    expect(groups.map((g) => [g.name, g.figures.n])).toEqual([
      ['new', 1],
      ['returning', 3],
    ]);
    const all = figuresOf(rows);
    expect(all.observed).toEqual({ small: 0.25, fit: 0.5, large: 0.25 });
    expect(all.offsetAuc).toBe(1);
    expect(all.answer.rentedRecommended).toBe(0.5);
  });
});
