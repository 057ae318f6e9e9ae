import { randomBytes } from 'node:crypto';
import { KEY_LENGTH, assertKid } from './keyring.js';

/**
 * A new keyring entry `"<kid>:<base64 32-byte key>"` for operators. To rotate, prepend it to
 * the configured keyring: `"<new entry>,<old entries>"`.
 *
 * From a checkout:
 *
 *     npx tsx -e "import('./lib/src/crypto/generate-key.ts').then((m) => console.log(m.generateKeyringEntry('k2')))"
 *
 * Or with Node alone (same output format):
 *
 *     node -e "console.log('k2:' + require('node:crypto').randomBytes(32).toString('base64'))"
 *
 * Throws `KeyringError` when `kid` does not match `^[A-Za-z0-9_-]{1,32}$`.
 */
export function generateKeyringEntry(kid: string): string {
  assertKid(kid);
  return `${kid}:${randomBytes(KEY_LENGTH).toString('base64')}`;
}
