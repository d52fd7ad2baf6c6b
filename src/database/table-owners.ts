/**
 * Who owns each table: the one module whose repositories write it (docs/architecture.md, "Tables and their owners").
 * `test/architecture/table-owners.spec.ts` reads the SQL of every module and fails on a table named outside its owner
 * that `CROSSINGS` does not declare; `test/architecture/table-owners.e2e-spec.ts` fails on a table with no owner.
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
  platform_connections: 'console',
  platform_oauth_states: 'console',
  schema_migrations: 'database',
} as const;

/**
 * The statements that name another module's tables, each declared with why: reads on the hot paths that one joined
 * statement serves (measured in docs/performance.md), and one write. A column renamed by its owner's migration must
 * be renamed here too; the e2e tests of these paths fail until it is.
 */
export const CROSSINGS: readonly { file: string; tables: readonly string[]; why: string }[] = [
  { file: 'api-keys/api-keys.repository.ts', tables: ['stores'], why: "a key's store, checked in the statement that authenticates it" },
  {
    file: 'console-accounts/console-accounts.repository.ts',
    tables: ['api_keys'],
    why: 'an account stands on a live key: sign-in, sessions and sign-up read (and lock) it in the statement that reads the account',
  },
  { file: 'fit/questionnaires.repository.ts', tables: ['stores'], why: "the store's default questionnaire, set on its row" },
  {
    file: 'fit/sessions.repository.ts',
    tables: ['products', 'product_types', 'size_charts'],
    why: 'the answers step reads the session with its chart, product and type in one round trip',
  },
  {
    file: 'events/events.repository.ts',
    tables: ['products', 'variants', 'sessions'],
    why: 'what an event names, read and locked FOR KEY SHARE in the statement that stores it',
  },
  {
    file: 'events/line-summaries.repository.ts',
    tables: ['sessions'],
    why: 'writes sessions.first_purchased_at in the ingestion transaction (the one write across a wall)',
  },
  {
    file: 'learning/evidence.repository.ts',
    tables: ['events', 'session_lines', 'products', 'variants', 'sessions'],
    why: "what an outcome says: its sizes on its product's chart and its line's session, in one statement",
  },
  {
    file: 'learning/line-lessons.repository.ts',
    tables: ['session_lines', 'order_lines', 'variants', 'sessions', 'products'],
    why: 'what a decision says once its line is bought, in one statement',
  },
  { file: 'learning/order-lines.ts', tables: ['size_charts'], why: "a product's chart labels, which both statements above join" },
  {
    file: 'metrics/metrics.repository.ts',
    tables: ['sessions', 'session_lines'],
    why: 'the cohort metrics, one statement over the summaries',
  },
];
