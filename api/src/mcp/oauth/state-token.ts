import { createHash, randomBytes } from 'node:crypto';

/** A new OAuth `state`: 256 random bits, base64url (43 characters). */
export function newStateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored for a state: its SHA-256, hex. */
export function hashStateToken(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}
