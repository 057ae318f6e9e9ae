import { randomBytes } from 'node:crypto';

/** A fresh tenant database password: 32 random bytes, base64url (43 URL-safe characters). */
export function generatePassword(): string {
  return randomBytes(32).toString('base64url');
}
