import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog, questionnaires, fit sessions and the events table the service records session events in.
 * Every store-owned row carries `merchant_id` and `store_id`, and every reference between them is a composite foreign
 * key through `store_id`, so a row can only ever point at a row of its own store.
 */
export class CatalogAndSessions1763820000000 implements MigrationInterface {
  name = 'CatalogAndSessions1763820000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const storeOwned = `
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL,
        store_id uuid NOT NULL`;
    const timestamps = `
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()`;

    await queryRunner.query(`
      CREATE TABLE product_types (${storeOwned},
        name text NOT NULL,
        category text NOT NULL CHECK (category IN ('tops', 'bottoms', 'dresses', 'outerwear', 'shoes', 'other')),
        zone_weights jsonb NOT NULL,${timestamps},
        CONSTRAINT product_types_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT product_types_id_store_id_key UNIQUE (id, store_id)
      )`);
    await queryRunner.query(`CREATE INDEX product_types_store_id_idx ON product_types (store_id, id)`);

    await queryRunner.query(`
      CREATE TABLE size_charts (${storeOwned},
        name text NOT NULL,
        unit text NOT NULL CHECK (unit IN ('cm', 'in')),
        measurement_type text NOT NULL CHECK (measurement_type IN ('body', 'garment')),
        ease_cm double precision CHECK ((measurement_type = 'garment') = (ease_cm IS NOT NULL)),
        sizes jsonb NOT NULL,
        archived_at timestamptz,${timestamps},
        CONSTRAINT size_charts_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT size_charts_id_store_id_key UNIQUE (id, store_id)
      )`);
    await queryRunner.query(`CREATE INDEX size_charts_store_id_idx ON size_charts (store_id, id)`);

    await queryRunner.query(`
      CREATE TABLE products (${storeOwned},
        external_id text,
        title text NOT NULL,
        product_type_id uuid NOT NULL,
        size_chart_id uuid NOT NULL,
        fit_adjustment text NOT NULL CHECK (fit_adjustment IN ('runs_small', 'true_to_size', 'runs_large')),
        archived_at timestamptz,${timestamps},
        CONSTRAINT products_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT products_product_type_fk FOREIGN KEY (product_type_id, store_id) REFERENCES product_types (id, store_id),
        CONSTRAINT products_size_chart_fk FOREIGN KEY (size_chart_id, store_id) REFERENCES size_charts (id, store_id),
        CONSTRAINT products_id_store_id_key UNIQUE (id, store_id),
        CONSTRAINT products_external_id_key UNIQUE (store_id, external_id)
      )`);
    await queryRunner.query(`CREATE INDEX products_store_id_idx ON products (store_id, id)`);
    await queryRunner.query(`CREATE INDEX products_product_type_id_idx ON products (product_type_id)`);
    await queryRunner.query(`CREATE INDEX products_size_chart_id_idx ON products (size_chart_id)`);

    await queryRunner.query(`
      CREATE TABLE variants (${storeOwned},
        product_id uuid NOT NULL,
        external_id text,
        size_label text NOT NULL,
        sku text,
        title text,
        archived_at timestamptz,${timestamps},
        CONSTRAINT variants_product_fk FOREIGN KEY (product_id, store_id) REFERENCES products (id, store_id)
          ON DELETE CASCADE,
        CONSTRAINT variants_id_store_id_key UNIQUE (id, store_id),
        CONSTRAINT variants_external_id_key UNIQUE (store_id, external_id)
      )`);
    await queryRunner.query(`CREATE INDEX variants_product_id_idx ON variants (product_id, id)`);

    await queryRunner.query(`
      CREATE TABLE questionnaires (${storeOwned},
        name text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        questions jsonb NOT NULL,
        is_default boolean NOT NULL DEFAULT false,
        archived_at timestamptz,${timestamps},
        CONSTRAINT questionnaires_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT questionnaires_id_store_id_key UNIQUE (id, store_id)
      )`);
    await queryRunner.query(`CREATE INDEX questionnaires_store_id_idx ON questionnaires (store_id, id)`);
    // At most one default questionnaire per store.
    await queryRunner.query(`CREATE UNIQUE INDEX questionnaires_default_key ON questionnaires (store_id) WHERE is_default`);
    await queryRunner.query(`
      CREATE TABLE questionnaire_versions (
        questionnaire_id uuid NOT NULL REFERENCES questionnaires (id) ON DELETE CASCADE,
        version integer NOT NULL,
        name text NOT NULL,
        questions jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (questionnaire_id, version)
      )`);

    await queryRunner.query(`
      CREATE TABLE sessions (${storeOwned},
        product_id uuid NOT NULL,
        size_chart_id uuid NOT NULL,
        questionnaire_id uuid,
        questionnaire_version integer,
        questions jsonb NOT NULL,
        state text NOT NULL CHECK (state IN ('started', 'recommended', 'completed')),
        outcome text CHECK (outcome IN ('accepted', 'overridden')),
        answers jsonb,
        recommendation jsonb,
        decision jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        recommended_at timestamptz,
        completed_at timestamptz,
        CONSTRAINT sessions_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT sessions_product_fk FOREIGN KEY (product_id, store_id) REFERENCES products (id, store_id),
        CONSTRAINT sessions_size_chart_fk FOREIGN KEY (size_chart_id, store_id) REFERENCES size_charts (id, store_id),
        CONSTRAINT sessions_questionnaire_fk FOREIGN KEY (questionnaire_id, store_id)
          REFERENCES questionnaires (id, store_id),
        CONSTRAINT sessions_id_store_id_key UNIQUE (id, store_id),
        CONSTRAINT sessions_state_consistent CHECK (
          (state = 'started' AND recommendation IS NULL AND outcome IS NULL)
          OR (state = 'recommended' AND recommendation IS NOT NULL AND outcome IS NULL)
          OR (state = 'completed' AND recommendation IS NOT NULL AND outcome IS NOT NULL AND decision IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX sessions_store_id_idx ON sessions (store_id, id)`);
    await queryRunner.query(`CREATE INDEX sessions_store_created_at_idx ON sessions (store_id, created_at)`);
    await queryRunner.query(`CREATE INDEX sessions_product_id_idx ON sessions (product_id)`);
    await queryRunner.query(`CREATE INDEX sessions_size_chart_id_idx ON sessions (size_chart_id)`);
    await queryRunner.query(`CREATE INDEX sessions_questionnaire_id_idx ON sessions (questionnaire_id)`);

    await queryRunner.query(`
      CREATE TABLE events (${storeOwned},
        source text NOT NULL,
        external_id text NOT NULL,
        type text NOT NULL,
        product_id uuid,
        variant_id uuid,
        session_id uuid,
        order_id text,
        line_item_id text,
        reason text CHECK (reason IN ('size', 'other')),
        quantity integer CHECK (quantity >= 1),
        occurred_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT events_store_fk FOREIGN KEY (store_id, merchant_id) REFERENCES stores (id, merchant_id),
        CONSTRAINT events_product_fk FOREIGN KEY (product_id, store_id) REFERENCES products (id, store_id),
        CONSTRAINT events_variant_fk FOREIGN KEY (variant_id, store_id) REFERENCES variants (id, store_id),
        CONSTRAINT events_session_fk FOREIGN KEY (session_id, store_id) REFERENCES sessions (id, store_id),
        CONSTRAINT events_delivery_key UNIQUE (merchant_id, store_id, source, external_id)
      )`);
    await queryRunner.query(`CREATE INDEX events_store_id_idx ON events (store_id, id)`);
    await queryRunner.query(`CREATE INDEX events_session_id_idx ON events (session_id)`);
    await queryRunner.query(`CREATE INDEX events_product_id_idx ON events (product_id)`);
    await queryRunner.query(`CREATE INDEX events_variant_id_idx ON events (variant_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'events',
      'sessions',
      'questionnaire_versions',
      'questionnaires',
      'variants',
      'products',
      'size_charts',
      'product_types',
    ]) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
