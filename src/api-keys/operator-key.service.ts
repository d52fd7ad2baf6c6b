import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app.config.js';
import { newId } from '../common/http/ids.js';
import { digestSecret, digestsEqual, generateSecret, OPERATOR_KEY_PREFIX } from '../common/crypto/key-secret.js';
import { OperatorKeysRepository } from './operator-keys.repository.js';

/**
 * The operator bootstrap key, the only credential that may create merchants. Only its SHA-256 digest is kept: in
 * memory when it comes from OPERATOR_BOOTSTRAP_KEY; in the database when the service made one itself, which it
 * does once, on an embedded non-production start, printing the secret that one time.
 */
@Injectable()
export class OperatorKeyService implements OnApplicationBootstrap {
  private readonly logger = new Logger(OperatorKeyService.name);
  private digest: string | null = null;
  private created: string | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly operatorKeys: OperatorKeysRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.operatorBootstrapKey !== null) {
      this.digest = digestSecret(this.config.operatorBootstrapKey);
      return;
    }
    const stored = await this.operatorKeys.findFirst();
    if (stored) {
      this.digest = stored.secretDigest;
      this.logger.log('operator bootstrap key: using the one created on first start (set OPERATOR_BOOTSTRAP_KEY to replace it)');
      return;
    }
    const secret = generateSecret(OPERATOR_KEY_PREFIX);
    await this.operatorKeys.insert({ id: newId(), secretDigest: digestSecret(secret) });
    this.digest = digestSecret(secret);
    this.created = secret;
    this.logger.log('operator bootstrap key: created one (it is shown once the service listens)');
  }

  /**
   * The key this start created, once: `main.ts` prints it, last, when the service listens (`operatorKeyNotice`). It
   * is never logged: that print is the only time anyone sees it.
   */
  takeCreated(): string | null {
    const secret = this.created;
    this.created = null;
    return secret;
  }

  /** Only an operator key (`sfo_…`, a public prefix) is hashed and compared: a merchant key costs nothing here. */
  matches(secret: string): boolean {
    return this.digest !== null && secret.startsWith(`${OPERATOR_KEY_PREFIX}_`) && digestsEqual(digestSecret(secret), this.digest);
  }
}

/** What a first start prints last: the key it created, framed, and what to do with it. */
export function operatorKeyNotice(secret: string, publicUrl: string): string {
  const rule = '='.repeat(78);
  return [
    '',
    rule,
    '  The operator bootstrap key, shown this once (only its digest is kept):',
    '',
    `    OP=${secret}`,
    '',
    '  Next:',
    '  1. Keep it where you keep secrets. It only creates merchants; to bring your own, set',
    '     OPERATOR_BOOTSTRAP_KEY (`npm run --silent operator-key` makes one).',
    '  2. Create a merchant and its admin key (the answer shows the admin key once):',
    `       curl -s -X POST ${publicUrl}/v1/merchants -H "Authorization: Bearer $OP" \\`,
    `         -H 'Content-Type: application/json' -d '{"name":"Acme Apparel"}'`,
    `  3. Sign up in the seller console with that admin key: ${publicUrl}/console`,
    `     The API reference is at ${publicUrl}/docs.`,
    rule,
    '',
    '',
  ].join('\n');
}
