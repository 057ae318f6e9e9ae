import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KID_PATTERN, keyringKey } from './keyring.js';
import type { Keyring } from './keyring.js';
import { SecretOpenError } from './secret-open-error.js';

/**
 * Authenticated encryption of small secrets (static tokens, serialised OAuth token sets) for
 * storage in the database.
 *
 * Envelope (one ASCII string, safe for a text column):
 *
 *     v1.<kid>.<iv>.<ciphertext>.<tag>
 *
 * - `v1`: format version; anything else is refused.
 * - `kid`: id of the keyring key that sealed it (`[A-Za-z0-9_-]{1,32}`, so never a `.`).
 * - `iv`: 12 random bytes, fresh for every seal, base64url without padding (16 chars).
 * - `ciphertext`: AES-256-GCM of the UTF-8 plaintext, base64url without padding (empty for
 *   an empty plaintext).
 * - `tag`: the 16-byte GCM authentication tag, base64url without padding (22 chars).
 *
 * The GCM associated data is `v1.<kid>.<aad>`: the caller's `aad` names the row the secret
 * belongs to (e.g. `mcp-credential:<server_id>:<user_id>`), so an envelope copied to another
 * row does not open, and the version and key id are authenticated too.
 */
const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

interface Envelope {
  kid: string;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

function associatedData(kid: string, aad: string): Buffer {
  return Buffer.from(`${VERSION}.${kid}.${aad}`, 'utf8');
}

function malformed(): SecretOpenError {
  return new SecretOpenError('malformed', 'sealed secret is not a v1 envelope');
}

/** Strict base64url (no padding, canonical trailing bits), or undefined. */
function decodePart(text: string): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function parseEnvelope(sealed: string): Envelope {
  const parts = sealed.split('.');
  if (parts.length !== 5) throw malformed();
  const [version, kid, ivText, ciphertextText, tagText] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (version !== VERSION || !KID_PATTERN.test(kid)) throw malformed();
  const iv = decodePart(ivText);
  const ciphertext = decodePart(ciphertextText);
  const tag = decodePart(tagText);
  if (iv?.length !== IV_LENGTH || ciphertext === undefined || tag?.length !== TAG_LENGTH) {
    throw malformed();
  }
  return { kid, iv, ciphertext, tag };
}

function requireAad(aad: string): void {
  if (aad === '') throw new TypeError('aad must name the row the secret belongs to');
}

/** Seals `plaintext` with the keyring's active key, bound to `aad`. */
export function sealSecret(keyring: Keyring, plaintext: string, aad: string): string {
  requireAad(aad);
  const kid = keyring.activeKid;
  const key = keyringKey(keyring, kid);
  if (key === undefined) throw new TypeError('keyring was not made by parseKeyring');
  const iv = randomBytes(IV_LENGTH);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_LENGTH });
  cipher.setAAD(associatedData(kid, aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, kid, iv, ciphertext, tag]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/**
 * Opens an envelope made by `sealSecret` with the same `aad`. Throws `SecretOpenError` when
 * the envelope is malformed, its key id is not in the keyring, or it does not authenticate
 * (tampered, wrong key, wrong `aad`).
 */
export function openSecret(keyring: Keyring, sealed: string, aad: string): string {
  const { kid, iv, ciphertext, tag } = parseEnvelope(sealed);
  const key = keyringKey(keyring, kid);
  if (key === undefined) {
    throw new SecretOpenError('unknown_kid', `sealed secret uses unknown key id ${kid}`);
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_LENGTH });
    decipher.setAAD(associatedData(kid, aad));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretOpenError(
      'authentication_failed',
      'sealed secret did not authenticate (tampered, wrong key or wrong row)',
    );
  }
}

/**
 * Whether an envelope was sealed with a key other than the active one, so the caller should
 * reseal it (`sealSecret(keyring, openSecret(keyring, sealed, aad), aad)`) and store the
 * result. Reads the header only; throws `SecretOpenError` (malformed) for a non-envelope.
 */
export function needsReseal(keyring: Keyring, sealed: string): boolean {
  return parseEnvelope(sealed).kid !== keyring.activeKid;
}
