/**
 * `npm run --silent operator-key`: prints a new operator bootstrap key, for `OPERATOR_BOOTSTRAP_KEY`. Keep it as you
 * keep any secret; the service keeps only its SHA-256 digest. Its `sfo_` prefix and checksum let the service refuse a
 * mistyped key without a lookup, and let logs and secret scanners recognise it.
 */
import { generateSecret, OPERATOR_KEY_PREFIX } from '../src/common/crypto/key-secret.js';

process.stdout.write(`${generateSecret(OPERATOR_KEY_PREFIX)}\n`);
