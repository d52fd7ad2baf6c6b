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
    // Printed straight to the terminal, once, and never logged: this is the only time anyone sees it.
    process.stdout.write(
      `\nOperator bootstrap key (shown once; only its digest is stored):\n\n    ${secret}\n\n` +
        'Use it to create merchants: POST /v1/merchants. Set OPERATOR_BOOTSTRAP_KEY to use your own (npm run --silent operator-key makes one).\n\n',
    );
  }

  /** Only an operator key (`sfo_…`, a public prefix) is hashed and compared: a merchant key costs nothing here. */
  matches(secret: string): boolean {
    return this.digest !== null && secret.startsWith(`${OPERATOR_KEY_PREFIX}_`) && digestsEqual(digestSecret(secret), this.digest);
  }
}
