/**
 * The key aliased `k` (a row of `api_keys`) is live: neither revoked nor expired. Sign-in, sessions and sign-up all
 * ask it, in the statements of console accounts that join the key an account stands on.
 */
export const LIVE_KEY = 'k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())';
