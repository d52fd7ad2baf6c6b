import { ViewColumn, ViewEntity } from 'typeorm';

/**
 * A key as other modules may read it: the read model `api_keys_records` (a view the api-keys module owns, migration
 * `1765000000000-read-models.ts`), never its digest or scopes. `live`: neither revoked nor expired, written once, in
 * the view.
 */
@ViewEntity({ name: 'api_keys_records' })
export class ApiKeyRecord {
  @ViewColumn()
  id: string;

  @ViewColumn({ name: 'merchant_id' })
  merchantId: string;

  @ViewColumn()
  name: string;

  @ViewColumn()
  prefix: string;

  @ViewColumn()
  live: boolean;
}
