/**
 * Catalog e2e: concurrent writes — a delete racing a create, and a chart change racing a variant, each end one way
 * or the other, never in a 500.
 */
import { describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { useApp } from '../../support/app.js';
import {
  catalogRequests,
  createProduct,
  createProductType,
  createSizeChart,
  createVariant,
  DEFAULT_SIZES,
  type SizeDefinitionBody,
} from '../../support/catalog-fixtures.js';
import { createTenant } from '../../support/fixtures.js';

describe('catalog', () => {
  const t = useApp();
  const { at, get, post, patch, del } = catalogRequests(t);

  describe('concurrent writes', () => {
    /**
     * Concurrent requests are repeated: on PostgreSQL they really run side by side, and a race shows in a few rounds.
     * The embedded database runs one transaction at a time, so one round is all it needs.
     */
    const ROUNDS = process.env.DATABASE_URL ? 5 : 1;

    /** `201`, `409:in_use`, `400:size_label/unknown_size`: what a client would branch on. */
    const outcome = (response: Response): string => {
      if (response.status === 400) {
        return `400:${(response.body.errors as { field: string; code: string }[]).map((e) => `${e.field}/${e.code}`).join(',')}`;
      }
      return response.body?.code ? `${response.status}:${response.body.code}` : String(response.status);
    };

    /** The outcomes of a race: one of the orders the requests could have run in. */
    function expectOneOf(seen: string[], allowed: string[][]): void {
      expect(seen).toEqual(allowed.find((one) => one.join() === seen.join()) ?? allowed);
    }

    it('a product type deleted while a product is created with it ends one way or the other, never in a 500', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const type = await createProductType(t, admin.secret, storeId);
        const chart = await createSizeChart(t, admin.secret, storeId);
        const [created, deleted] = await Promise.all([
          post(admin.secret, at(storeId, '/products'), { title: 'Race', product_type_id: type.id, size_chart_id: chart.id }),
          del(admin.secret, at(storeId, `/product-types/${type.id}`)),
        ]);
        expectOneOf(
          [outcome(created), outcome(deleted)],
          [
            ['201', '409:in_use'],
            ['400:product_type_id/not_found', '204'],
          ],
        );
      }
    });

    it('a size chart deleted while a product is created with it ends one way or the other, never in a 500', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const type = await createProductType(t, admin.secret, storeId);
        const chart = await createSizeChart(t, admin.secret, storeId);
        const [created, deleted] = await Promise.all([
          post(admin.secret, at(storeId, '/products'), { title: 'Race', product_type_id: type.id, size_chart_id: chart.id }),
          del(admin.secret, at(storeId, `/size-charts/${chart.id}`)),
        ]);
        expectOneOf(
          [outcome(created), outcome(deleted)],
          [
            ['201', '409:in_use'],
            ['400:size_chart_id/not_found', '204'],
          ],
        );
      }
    });

    it('a product deleted while a session starts on it is either archived or gone, never a 500', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const product = await createProduct(t, admin.secret, storeId);
        const [started, deleted] = await Promise.all([
          post(admin.secret, at(storeId, '/sessions'), { product_id: product.id }),
          del(admin.secret, at(storeId, `/products/${product.id}`)),
        ]);
        expectOneOf(
          [outcome(started), outcome(deleted)],
          [
            ['201', '200'],
            ['400:product_id/not_found', '204'],
          ],
        );
      }
    });

    it('a chart that drops a size while a variant of that size is created never leaves the variant without its size', async () => {
      const [small, medium] = DEFAULT_SIZES;
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const product = await createProduct(t, admin.secret, storeId);
        const [variant, trimmed] = await Promise.all([
          post(admin.secret, at(storeId, `/products/${product.id}/variants`), { size_label: 'L' }),
          patch(admin.secret, at(storeId, `/size-charts/${product.size_chart_id}`), { sizes: [small, medium] }),
        ]);
        expectOneOf(
          [outcome(variant), outcome(trimmed)],
          [
            ['201', '400:sizes/label_in_use'],
            ['400:size_label/unknown_size', '200'],
          ],
        );
        const labels = (await get(admin.secret, at(storeId, `/size-charts/${product.size_chart_id}`))).body.sizes.map(
          (size: SizeDefinitionBody) => size.label,
        );
        const variants = (await get(admin.secret, at(storeId, `/products/${product.id}/variants`))).body.data as { size_label: string }[];
        for (const { size_label } of variants) expect(labels).toContain(size_label);
      }
    });

    it('a product moved to a chart without a size while a variant is relabelled to it never leaves the variant without its size', async () => {
      const [small, medium] = DEFAULT_SIZES;
      for (let round = 0; round < ROUNDS; round++) {
        const { admin, storeId } = await createTenant(t);
        const product = await createProduct(t, admin.secret, storeId);
        const smaller = await createSizeChart(t, admin.secret, storeId, { sizes: [small, medium] });
        const variant = await createVariant(t, admin.secret, storeId, product.id, { size_label: 'M' });
        const [relabelled, moved] = await Promise.all([
          patch(admin.secret, at(storeId, `/products/${product.id}/variants/${variant.id}`), { size_label: 'L' }),
          patch(admin.secret, at(storeId, `/products/${product.id}`), { size_chart_id: smaller.id }),
        ]);
        expectOneOf(
          [outcome(relabelled), outcome(moved)],
          [
            ['200', '400:size_chart_id/label_mismatch'],
            ['400:size_label/unknown_size', '200'],
          ],
        );
        const chartId = (await get(admin.secret, at(storeId, `/products/${product.id}`))).body.size_chart_id;
        const labels = (await get(admin.secret, at(storeId, `/size-charts/${chartId}`))).body.sizes.map(
          (size: SizeDefinitionBody) => size.label,
        );
        const variants = (await get(admin.secret, at(storeId, `/products/${product.id}/variants`))).body.data as { size_label: string }[];
        for (const { size_label } of variants) expect(labels).toContain(size_label);
      }
    });
  });
});
