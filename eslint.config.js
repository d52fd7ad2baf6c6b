// Lint: the TypeScript rules that catch mistakes, no import cycles, and nothing about layout (Prettier owns that).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * Each feature folder under src/ and the files of it that other features may import: its Nest module (to import it),
 * the providers that module exports, and the types and pure helpers those providers speak in. Everything else in a
 * feature is its own; `import-x/no-restricted-paths` fails the build on a reach past that wall.
 */
const PUBLIC = {
  auth: ['access.decorators.ts', 'principal.ts', 'scopes.ts', 'bearer-token.ts'],
  'api-keys': ['api-keys.module.ts', 'api-keys.service.ts', 'operator-key.service.ts', 'issued-keys.ts', 'api-key-record.entity.ts', 'dto'],
  'console-accounts': [
    'console-accounts.module.ts',
    'console-accounts.service.ts',
    'console-session-access.ts',
    'console-credentials.ts',
    'dto',
  ],
  idempotency: ['idempotent-creates.interceptor.ts', 'idempotent-routes.ts', 'submitted-forms.ts'],
  merchants: [],
  stores: ['stores.module.ts', 'stores.service.ts', 'store.entity.ts', 'dto'],
  catalog: [
    'catalog.module.ts',
    'catalog-references.ts',
    'catalog-lookups.service.ts',
    'product-types.service.ts',
    'size-charts.service.ts',
    'products.service.ts',
    'catalog.entities.ts',
    'dto',
  ],
  fit: ['fit.module.ts', 'product-fit.service.ts', 'sessions.service.ts', 'dto'],
  events: ['events.module.ts', 'session-events.service.ts', 'event-types.ts', 'events.service.ts'],
  problems: ['problems.module.ts'],
  learning: ['learning.module.ts', 'learning.service.ts', 'order-lines.ts', 'shopper-digests.ts'],
  metrics: ['metrics.module.ts', 'metrics.service.ts', 'dto'],
  experiments: ['experiments.module.ts', 'experiments.service.ts', 'results.service.ts', 'dto'],
  platform: [
    'platform.module.ts',
    'platform.service.ts',
    'platform-notices.service.ts',
    'catalog-import.service.ts',
    'platform.entities.ts',
  ],
  console: [],
  health: [],
};
const featureWalls = Object.keys(PUBLIC).flatMap((target) =>
  Object.entries(PUBLIC)
    .filter(([from]) => from !== target)
    .map(([from, open]) => ({
      target: `./src/${target}`,
      from: `./src/${from}`,
      except: open.map((path) => `./${path}`),
      message: `${from} is reached through what it exports (eslint.config.js, PUBLIC)`,
    })),
);

/**
 * The lower layers know no feature: the sizing engine imports nothing of the service; configuration, the database and
 * the common parts import only each other and the engine.
 */
const LOWER = ['common', 'config', 'database', 'sizing'];
const lowerLayers = [
  {
    target: './src/sizing',
    from: './src',
    except: ['./sizing'],
    message: 'the sizing engine is the bottom layer: it imports nothing of the service',
  },
  ...LOWER.filter((layer) => layer !== 'sizing').map((layer) => ({
    target: `./src/${layer}`,
    from: './src',
    except: LOWER.map((lower) => `./${lower}`),
    message: `${layer} is a lower layer: it imports no feature module`,
  })),
];

export default tseslint.config(
  { ignores: ['dist/', 'kit/client/dist/', 'node_modules/', 'coverage/', 'data/', 'bench/.state/', 'public/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-duplicates': 'error',
      'import-x/no-self-import': 'error',
      'import-x/no-restricted-paths': ['error', { zones: [...featureWalls, ...lowerLayers] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  prettier,
);
