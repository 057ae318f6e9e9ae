import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Platform API keys: `sk-svc-v1-<key_body>` (spec: core-api.md, Authentication). */
export const API_KEY_PREFIX = 'sk-svc-v1-';
/** 32 random bytes, base64url: 43 characters, 256 bits. */
const BODY = /^[A-Za-z0-9_-]{43}$/;
/** Characters of the body kept in clear to find the key and to show it in listings. */
export const LOOKUP_LENGTH = 8;

export interface NewApiKey {
  /** The whole key; shown once, never stored. */
  key: string;
  /** `sk-svc-v1-` plus the first LOOKUP_LENGTH characters of the body. */
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): NewApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return {
    key,
    prefix: key.slice(0, API_KEY_PREFIX.length + LOOKUP_LENGTH),
    hash: hashApiKey(key),
  };
}

/** The listing prefix of a well-formed key, or undefined for a malformed one. */
export function parseApiKey(value: string): { prefix: string } | undefined {
  if (!value.startsWith(API_KEY_PREFIX)) return undefined;
  const body = value.slice(API_KEY_PREFIX.length);
  if (!BODY.test(body)) return undefined;
  return { prefix: value.slice(0, API_KEY_PREFIX.length + LOOKUP_LENGTH) };
}

/** Constant-time comparison of a presented key against a stored hash. */
export function apiKeyMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashApiKey(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
