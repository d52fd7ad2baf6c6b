/**
 * The simulation's figure, as a self-contained SVG (no plotting library): left, exact-size accuracy on new shoppers
 * against outcomes per product for the three engines; right, each product's learned offset against outcomes, its true
 * offset dashed in the same colour, and the last estimate's 95% interval.
 */
import type { Checkpoint } from './sim-report.js';

const WIDTH = 960;
const HEIGHT = 440;
const PANEL = { width: 380, height: 280, top: 60 };
const LEFTS = [70, 550];
const PRODUCT_COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#d62728'];
const ENGINES = [
  { name: 'learning', colour: '#1f77b4', dash: '' },
  { name: 'never learns (stated chart)', colour: '#7f7f7f', dash: '' },
  { name: 'knows the true chart', colour: '#2ca02c', dash: '6 4' },
] as const;

const f1 = (x: number) => x.toFixed(1);
const escape = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const text = (x: number, y: number, s: string, extra = '') => `<text x="${f1(x)}" y="${f1(y)}" ${extra}>${escape(s)}</text>`;
const line = (x1: number, y1: number, x2: number, y2: number, style: string) =>
  `<line x1="${f1(x1)}" y1="${f1(y1)}" x2="${f1(x2)}" y2="${f1(y2)}" ${style}/>`;
const polyline = (points: readonly (readonly [number, number])[], colour: string, dash: string) =>
  `<polyline fill="none" stroke="${colour}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${points
    .map(([x, y]) => `${f1(x)},${f1(y)}`)
    .join(' ')}"/>`;

/** A panel's axes: checkpoints evenly spaced along x (they are not evenly spaced in outcomes), a linear y. */
function axes(
  left: number,
  checkpoints: readonly number[],
  yMin: number,
  yMax: number,
  yTicks: readonly number[],
  title: string,
  yLabel: string,
) {
  const x = (i: number) => left + (PANEL.width * i) / Math.max(checkpoints.length - 1, 1);
  const y = (v: number) => PANEL.top + PANEL.height * (1 - (v - yMin) / (yMax - yMin));
  const bottom = PANEL.top + PANEL.height;
  const parts = [
    text(left + PANEL.width / 2, PANEL.top - 28, title, 'text-anchor="middle" font-weight="bold"'),
    line(left, bottom, left + PANEL.width, bottom, 'stroke="#333"'),
    line(left, PANEL.top, left, bottom, 'stroke="#333"'),
    ...checkpoints.map((c, i) => text(x(i), bottom + 18, String(c), 'text-anchor="middle"')),
    text(left + PANEL.width / 2, bottom + 38, 'outcomes per product', 'text-anchor="middle"'),
    ...yTicks.flatMap((t) => [
      line(left, y(t), left + PANEL.width, y(t), 'stroke="#ddd"'),
      text(left - 8, y(t) + 4, String(t), 'text-anchor="end"'),
    ]),
    text(
      left - 48,
      PANEL.top + PANEL.height / 2,
      yLabel,
      `text-anchor="middle" transform="rotate(-90 ${left - 48} ${PANEL.top + PANEL.height / 2})"`,
    ),
  ];
  return { x, y, parts };
}

function accuracyPanel(checkpoints: readonly Checkpoint[]): string[] {
  const values = checkpoints.flatMap((c) => [c.learning.all.exact, c.statedChart.all.exact, c.trueChart.all.exact].map((v) => 100 * v));
  const yMin = Math.floor(Math.min(...values) / 5) * 5;
  const yMax = Math.ceil(Math.max(...values) / 5) * 5;
  const ticks = Array.from({ length: (yMax - yMin) / 5 + 1 }, (_, i) => yMin + 5 * i);
  const { x, y, parts } = axes(
    LEFTS[0],
    checkpoints.map((c) => c.outcomes),
    yMin,
    yMax,
    ticks,
    'Exact size, new shoppers',
    'exact-size accuracy (%)',
  );
  const series = [
    checkpoints.map((c) => c.learning.all.exact),
    checkpoints.map((c) => c.statedChart.all.exact),
    checkpoints.map((c) => c.trueChart.all.exact),
  ];
  // one row under the axis, clear of the lines whatever the figures
  const legendY = PANEL.top + PANEL.height + 62;
  const legendX = [LEFTS[0] - 20, LEFTS[0] + 70, LEFTS[0] + 260];
  const legend = ENGINES.flatMap((e, k) => [
    line(
      legendX[k],
      legendY - 4,
      legendX[k] + 22,
      legendY - 4,
      `stroke="${e.colour}" stroke-width="2"${e.dash ? ` stroke-dasharray="${e.dash}"` : ''}`,
    ),
    text(legendX[k] + 27, legendY, e.name),
  ]);
  return [
    ...parts,
    ...series.map((s, k) =>
      polyline(
        s.map((v, i) => [x(i), y(100 * v)] as const),
        ENGINES[k].colour,
        ENGINES[k].dash,
      ),
    ),
    ...legend,
  ];
}

function offsetPanel(checkpoints: readonly Checkpoint[], offsets: readonly number[]): string[] {
  const { x, y, parts } = axes(
    LEFTS[1],
    checkpoints.map((c) => c.outcomes),
    -1.5,
    1.5,
    [-1.5, -1, -0.5, 0, 0.5, 1, 1.5],
    'Learned vs true offset',
    'size steps (+: runs small)',
  );
  const last = checkpoints.length - 1;
  const right = LEFTS[1] + PANEL.width;
  const products = offsets.flatMap((offset, p) => {
    const colour = PRODUCT_COLOURS[p % PRODUCT_COLOURS.length];
    const final = checkpoints[last].learned[p];
    // products with the same true offset are told apart by a small sideways nudge of the final interval
    const at = x(last) - 6 - 5 * p;
    return [
      line(LEFTS[1], y(offset), right, y(offset), `stroke="${colour}" stroke-dasharray="4 4" opacity="0.7"`),
      polyline(
        checkpoints.map((c, i) => [x(i), y(c.learned[p].size_steps)] as const),
        colour,
        '',
      ),
      line(at, y(Math.max(final.low, -1.5)), at, y(Math.min(final.high, 1.5)), `stroke="${colour}" stroke-width="1.5"`),
    ];
  });
  const key = text(
    LEFTS[1] + PANEL.width / 2,
    PANEL.top + PANEL.height + 62,
    'solid: learned offset · dashed: true offset · bar: 95% interval at the end',
    'text-anchor="middle"',
  );
  return [...parts, ...products, ...labels(checkpoints[last], offsets, y, right), key];
}

/** Each product's name at the end of its path, moved apart where paths end close together. */
function labels(final: Checkpoint, offsets: readonly number[], y: (v: number) => number, right: number): string[] {
  const GAP = 13;
  const placed = offsets.map((_, p) => ({ p, at: y(final.learned[p].size_steps) + 4 })).sort((a, b) => a.at - b.at);
  for (let k = 1; k < placed.length; k++) placed[k].at = Math.max(placed[k].at, placed[k - 1].at + GAP);
  return placed.map(({ p, at }) => text(right + 6, at, `P${p + 1}`, `fill="${PRODUCT_COLOURS[p % PRODUCT_COLOURS.length]}"`));
}

export function plotSvg(checkpoints: readonly Checkpoint[], offsets: readonly number[], caption: string): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    ...accuracyPanel(checkpoints),
    ...offsetPanel(checkpoints, offsets),
    text(WIDTH / 2, HEIGHT - 10, caption, 'text-anchor="middle" fill="#555"'),
    '</svg>',
    '',
  ].join('\n');
}
