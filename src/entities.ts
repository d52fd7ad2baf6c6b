import { API_KEYS_ENTITIES } from './api-keys/api-key.entity.js';
import { CATALOG_ENTITIES } from './catalog/catalog.entities.js';
import { CONSOLE_ACCOUNTS_ENTITIES } from './console-accounts/console-account.entity.js';
import { PLATFORM_ENTITIES } from './platform/platform.entities.js';
import { EVENTS_ENTITIES } from './events/events.entities.js';
import { EXPERIMENTS_ENTITIES } from './experiments/experiment.entity.js';
import { FIT_ENTITIES } from './fit/fit.entities.js';
import { IDEMPOTENCY_ENTITIES } from './idempotency/idempotency-key.entity.js';
import { LEARNING_ENTITIES } from './learning/learning.entities.js';
import { MERCHANTS_ENTITIES } from './merchants/merchant.entity.js';
import { STORES_ENTITIES } from './stores/store.entity.js';

/**
 * Every entity of the service, gathered from the features' own lists for the DataSource (`ormconfig.ts`: the
 * service's and the migration CLI's options). Each feature's module registers its list with
 * `TypeOrmModule.forFeature`; an entity registered there and missing here fails the start (TypeORM has no metadata
 * for it). The migrations make the schema, the entities describe it: `test/architecture/entities.e2e-spec.ts`
 * compares them.
 */
export const ENTITIES = [
  ...MERCHANTS_ENTITIES,
  ...STORES_ENTITIES,
  ...API_KEYS_ENTITIES,
  ...CONSOLE_ACCOUNTS_ENTITIES,
  ...IDEMPOTENCY_ENTITIES,
  ...CATALOG_ENTITIES,
  ...FIT_ENTITIES,
  ...EVENTS_ENTITIES,
  ...LEARNING_ENTITIES,
  ...EXPERIMENTS_ENTITIES,
  ...PLATFORM_ENTITIES,
];
