/**
 * The example storefront's shop: two products as the e-commerce platform would hold them (its ids, titles, prices,
 * variants), and the same catalog created in Size-Fit, linked through `external_id`, with a default questionnaire
 * that asks every kind of question the service supports.
 */
import type { SizeFitClient } from '../client/size-fit.js';

export interface ShopProduct {
  readonly id: string;
  readonly title: string;
  readonly price: string;
  readonly description: string;
  readonly sizes: ReadonlyArray<{ readonly label: string; readonly variantId: string }>;
  /** As the merchant states it in Size-Fit: the recommendation moves the shopper up or down, and says so. */
  readonly fit: 'runs_small' | 'true_to_size' | 'runs_large';
}

const LABELS = ['XS', 'S', 'M', 'L', 'XL'];
const variants = (productId: string) => LABELS.map((label) => ({ label, variantId: `${productId}-${label}` }));

export const SHOP_PRODUCTS: readonly ShopProduct[] = [
  {
    id: 'gid-1001',
    title: 'Merino crew tee',
    price: '€39.00',
    description: 'Fine merino wool, a regular cut.',
    sizes: variants('gid-1001'),
    fit: 'true_to_size',
  },
  {
    id: 'gid-1002',
    title: 'Linen overshirt',
    price: '€69.00',
    description: 'Washed linen, a slim cut that runs small.',
    sizes: variants('gid-1002'),
    fit: 'runs_small',
  },
];

/** Creates the shop's catalog in a Size-Fit store, with a key that may do so (admin, or store-bound with catalog and fit). */
export async function seedCatalog(client: SizeFitClient, storeId: string): Promise<void> {
  const inStore = { path: { store_id: storeId } };
  const type = await client.POST('/v1/stores/{store_id}/product-types', {
    params: inStore,
    body: { name: 'Tops', category: 'tops', zone_weights: { chest: 1, waist: 0.5 } },
  });
  const chart = await client.POST('/v1/stores/{store_id}/size-charts', {
    params: inStore,
    body: {
      name: 'Tops (body, cm)',
      unit: 'cm',
      measurement_type: 'body',
      sizes: LABELS.map((label, index) => ({
        label,
        measurements: { chest: { min: 80 + 8 * index, max: 88 + 8 * index }, waist: { min: 66 + 8 * index, max: 74 + 8 * index } },
      })),
    },
  });
  await client.POST('/v1/stores/{store_id}/questionnaires', {
    params: inStore,
    body: {
      name: 'Tops',
      default: true,
      questions: [
        { key: 'height', required: true },
        { key: 'weight', required: true },
        { key: 'age', required: false },
        { key: 'sex', required: false },
        { key: 'fit_preference', required: false },
        { key: 'usual_size', required: false },
        { key: 'chest', required: false },
        { key: 'waist', required: false },
      ],
    },
  });
  for (const shopProduct of SHOP_PRODUCTS) {
    const product = await client.POST('/v1/stores/{store_id}/products', {
      params: inStore,
      body: {
        title: shopProduct.title,
        external_id: shopProduct.id,
        product_type_id: type.id,
        size_chart_id: chart.id,
        fit_adjustment: shopProduct.fit,
      },
    });
    for (const size of shopProduct.sizes)
      await client.POST('/v1/stores/{store_id}/products/{product_id}/variants', {
        params: { path: { store_id: storeId, product_id: product.id } },
        body: { size_label: size.label, external_id: size.variantId },
      });
  }
}

/**
 * A store's products as the shop's own, for the storefront over a store set up elsewhere (the seller console): each
 * active product with a platform id (`external_id`), its active sizes in the size chart's order. This storefront plays
 * the platform, so a size without a platform id gets one, `<product's id>-<size>`, written to Size-Fit as a platform's
 * sync would: the order webhook names variants by those ids. A product without a platform id is left out.
 */
export async function storeProducts(client: SizeFitClient, storeId: string): Promise<ShopProduct[]> {
  const products: ShopProduct[] = [];
  for await (const product of client.list('/v1/stores/{store_id}/products', { params: { path: { store_id: storeId } } })) {
    const platformId = product.external_id;
    if (platformId === null || product.archived_at !== null) continue;
    const chart = await client.GET('/v1/stores/{store_id}/size-charts/{id}', {
      params: { path: { store_id: storeId, id: product.size_chart_id } },
    });
    const order = new Map(chart.sizes.map((size, index) => [size.label, index]));
    const onProduct = { path: { store_id: storeId, product_id: product.id } };
    const sizes: Array<{ label: string; variantId: string }> = [];
    for await (const variant of client.list('/v1/stores/{store_id}/products/{product_id}/variants', { params: onProduct })) {
      if (variant.archived_at !== null) continue;
      let variantId = variant.external_id;
      if (variantId === null) {
        variantId = `${platformId}-${variant.size_label}`;
        await client.PATCH('/v1/stores/{store_id}/products/{product_id}/variants/{id}', {
          params: { path: { ...onProduct.path, id: variant.id } },
          body: { external_id: variantId },
        });
      }
      sizes.push({ label: variant.size_label, variantId });
    }
    sizes.sort((a, b) => (order.get(a.label) ?? Infinity) - (order.get(b.label) ?? Infinity));
    if (sizes.length > 0)
      products.push({ id: platformId, title: product.title, price: '', description: '', sizes, fit: product.fit_adjustment });
  }
  return products;
}
