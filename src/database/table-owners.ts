/**
 * Who owns each table: the one module whose SQL names it (docs/architecture.md, "Tables and their owners"). Another
 * module reads it through a read model below, or through the owner's exported service.
 * `test/architecture/table-owners.spec.ts` reads the SQL of every module and fails on a table named outside its owner,
 * or a read model named by a module it does not list; `test/architecture/table-owners.e2e-spec.ts` fails on a table or
 * view of the database missing here, and on a read model that reads a table its owner does not own.
 */
export const TABLE_OWNERS = {
  merchants: 'merchants',
  stores: 'stores',
  api_keys: 'api-keys',
  operator_keys: 'api-keys',
  console_accounts: 'console-accounts',
  console_sessions: 'console-accounts',
  idempotency_keys: 'idempotency',
  product_types: 'catalog',
  size_charts: 'catalog',
  products: 'catalog',
  variants: 'catalog',
  questionnaires: 'fit',
  questionnaire_versions: 'fit',
  sessions: 'fit',
  shopper_keys: 'fit',
  events: 'events',
  order_lines: 'events',
  session_lines: 'events',
  fit_evidence: 'learning',
  fit_evidence_types: 'learning',
  shopper_evidence: 'learning',
  line_lessons: 'learning',
  fit_answer_links: 'learning',
  fit_verdicts: 'learning',
  experiments: 'experiments',
  experiment_exposures: 'experiments',
  platform_connections: 'platform',
  platform_oauth_states: 'platform',
  platform_webhooks: 'platform',
  platform_imports: 'platform',
  platform_products: 'platform',
  schema_migrations: 'database',
  // TypeORM's record of the views entities describe (`ApiKeyRecord`), made by its migration runner.
  typeorm_metadata: 'database',
} as const;

/**
 * The read models: views of one table each (migration `1765000000000-read-models.ts`), owned by the table's owner, with
 * the columns other modules may read, under the table's column names. PostgreSQL folds a view into the statement that
 * reads it, so a hot-path statement keeps its single round trip and its plan (docs/performance.md). A migration of the
 * owner that drops or retypes an exposed column fails until it recreates the view: the view is the owner's promise.
 * `writers`: the modules that may also UPDATE through it (the one write across a wall).
 */
export const READ_MODELS: Readonly<Record<string, { owner: string; readers: readonly string[]; writers?: readonly string[] }>> = {
  stores_records: { owner: 'stores', readers: ['api-keys'] },
  api_keys_records: { owner: 'api-keys', readers: ['console-accounts'] },
  catalog_products: { owner: 'catalog', readers: ['events', 'fit', 'learning', 'experiments'] },
  catalog_variants: { owner: 'catalog', readers: ['events', 'learning'] },
  catalog_product_types: { owner: 'catalog', readers: ['fit', 'experiments'] },
  catalog_size_charts: { owner: 'catalog', readers: ['fit', 'learning'] },
  fit_sessions: { owner: 'fit', readers: ['events', 'learning', 'metrics', 'experiments'] },
  fit_session_purchases: { owner: 'fit', readers: [], writers: ['events'] },
  events_order_events: { owner: 'events', readers: ['learning', 'experiments'] },
  events_order_lines: { owner: 'events', readers: ['learning', 'experiments'] },
  events_session_lines: { owner: 'events', readers: ['learning', 'metrics'] },
};
