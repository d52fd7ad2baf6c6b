/**
 * The RentTheRunway shop set up as a store through the API, with the operator key, as a merchant would: a merchant (its
 * admin key), a store, a product type per RTR category (chest only), one body chart of the shop's common sizes, a
 * product per item with a variant per size, and a questionnaire asking height, weight, age, chest and usual size, none
 * required, made the store's default.
 */
import { mapLimit } from './sim-api.js';
import type { ChestSize } from './outcome-data.js';
import type { OutcomeApi } from './outcome-api.js';

/** The service's product categories that RTR's categories fall in; anything else is `other`. */
const CATEGORY_OF: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ['dress', 'gown', 'sheath', 'shift', 'maxi', 'mini', 'shirtdress', 'frock', 'kaftan', 'caftan', 'romper', 'jumpsuit'].map((c) => [
      c,
      'dresses',
    ]),
  ),
  ...Object.fromEntries(
    [
      'top',
      'blouse',
      'shirt',
      'tank',
      'tee',
      'tunic',
      'cami',
      'sweater',
      'pullover',
      'knit',
      'turtleneck',
      'henley',
      'sweatshirt',
      'hoodie',
    ].map((c) => [c, 'tops']),
  ),
  ...Object.fromEntries(
    ['skirt', 'skirts', 'pants', 'pant', 'legging', 'leggings', 'culottes', 'culotte', 'trouser', 'trousers', 'tight'].map((c) => [
      c,
      'bottoms',
    ]),
  ),
  ...Object.fromEntries(
    ['jacket', 'coat', 'blazer', 'down', 'vest', 'cape', 'bomber', 'peacoat', 'poncho', 'trench', 'parka', 'cardigan', 'kimono'].map(
      (c) => [c, 'outerwear'],
    ),
  ),
};

export const serviceCategory = (rtrCategory: string) => CATEGORY_OF[rtrCategory] ?? 'other';

/** The questions of the store's default questionnaire: all optional. */
export const QUESTIONS = ['height', 'weight', 'age', 'chest', 'usual_size'] as const;

export interface StoreProduct {
  readonly id: string;
  /** Variant ids by chart size (the labels' order). */
  readonly variants: readonly string[];
}

export interface OutcomeStore {
  readonly id: string;
  /** The merchant's admin key. */
  readonly admin: OutcomeApi;
  readonly chartId: string;
  readonly questionnaireId: string;
  readonly labels: readonly string[];
  /** By RTR item id. */
  readonly products: ReadonlyMap<string, StoreProduct>;
}

const idOf = (body: unknown) => (body as { id: string }).id;

/**
 * Creates the store. `items`: every item the run rents, with its RTR category. Products and their variants are
 * created `concurrency` at a time.
 */
export async function createOutcomeStore(
  operator: OutcomeApi,
  chart: readonly ChestSize[],
  items: ReadonlyMap<string, string>,
  concurrency: number,
  progress: (done: number) => void = () => {},
): Promise<OutcomeStore> {
  const merchant = await operator.post<{ api_key: { secret: string } }>('/v1/merchants', { name: 'RentTheRunway replay' });
  const admin = operator.as(merchant.api_key.secret);
  const storeId = idOf(await admin.post('/v1/stores', { name: 'RentTheRunway', currency: 'USD' }));
  const base = `/v1/stores/${storeId}`;
  const labels = chart.map((s) => String(s.size));
  const chartId = idOf(
    await admin.post(`${base}/size-charts`, {
      name: 'RentTheRunway sizes by bust',
      unit: 'cm',
      measurement_type: 'body',
      sizes: chart.map((s, i) => ({ label: labels[i], measurements: { chest: { min: s.min, max: s.max } } })),
    }),
  );
  const types = new Map<string, string>();
  for (const category of [...new Set(items.values())].sort()) {
    types.set(
      category,
      idOf(await admin.post(`${base}/product-types`, { name: category, category: serviceCategory(category), zone_weights: { chest: 1 } })),
    );
  }
  const questionnaireId = idOf(
    await admin.post(`${base}/questionnaires`, {
      name: 'Size and fit',
      questions: QUESTIONS.map((key) => ({ key, required: false })),
      default: true,
    }),
  );
  let done = 0;
  const entries = [...items.entries()];
  const made = await mapLimit(entries, concurrency, async ([itemId, category]) => {
    const productId = idOf(
      await admin.post(`${base}/products`, {
        title: `RTR item ${itemId}`,
        external_id: itemId,
        product_type_id: types.get(category),
        size_chart_id: chartId,
      }),
    );
    const variants: string[] = [];
    for (const label of labels) {
      variants.push(
        idOf(await admin.post(`${base}/products/${productId}/variants`, { size_label: label, external_id: `${itemId}-${label}` })),
      );
    }
    if (++done % 500 === 0) progress(done);
    return [itemId, { id: productId, variants }] as const;
  });
  return { id: storeId, admin, chartId, questionnaireId, labels, products: new Map(made) };
}
