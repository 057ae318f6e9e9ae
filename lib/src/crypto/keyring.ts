import { hkdfSync } from 'node:crypto';
import { KeyringError } from './keyring-error.js';

/** Key ids: short, and free of `.` and `:` so they fit in envelopes and configuration. */
export const KID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
/** AES-256 keys are 32 bytes. */
export const KEY_LENGTH = 32;

/** Standard or URL-safe base64 (not mixed), optional padding. */
const BASE64 = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;

/**
 * The keys that protect credentials at rest. The first key of the configuration is the
 * active one (every new seal uses it); every key can open. Rotation: prepend a new entry,
 * deploy, and envelopes sealed with older keys are resealed lazily when next read (see
 * `needsReseal`); drop an old entry only once nothing sealed with it remains.
 *
 * The key bytes are not properties of this object: they live in a module-private WeakMap,
 * so `inspect`, `JSON.stringify`, `toString` and spreading show key ids only.
 */
export interface Keyring {
  /** The key id new envelopes are sealed with. */
  readonly activeKid: string;
  /** All key ids, active first, in configuration order. */
  readonly kids: readonly string[];
  /** Whether the keyring can open envelopes sealed with this key id. */
  has(kid: string): boolean;
  toString(): string;
  toJSON(): { activeKid: string; kids: readonly string[] };
}

const keysOf = new WeakMap<Keyring, ReadonlyMap<string, Buffer>>();

class KeyringImpl implements Keyring {
  readonly activeKid: string;
  readonly kids: readonly string[];

  constructor(kids: readonly string[]) {
    const [active] = kids;
    if (active === undefined) throw new KeyringError('keyring has no keys');
    this.activeKid = active;
    this.kids = Object.freeze([...kids]);
    Object.freeze(this);
  }

  has(kid: string): boolean {
    return this.kids.includes(kid);
  }

  toString(): string {
    return `Keyring(active: ${this.activeKid}, kids: ${this.kids.join(', ')})`;
  }

  toJSON(): { activeKid: string; kids: readonly string[] } {
    return { activeKid: this.activeKid, kids: this.kids };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}

/** Refuses a malformed key id; `position` (1-based) names the entry, never its text. */
export function assertKid(kid: string, position?: number): void {
  if (!KID_PATTERN.test(kid)) {
    const where = position === undefined ? 'key id' : `keyring entry ${position}: key id`;
    throw new KeyringError(`${where} must match ${KID_PATTERN.source}`, position);
  }
}

function decodeKey(text: string, kid: string, position: number): Buffer {
  const fail = (rule: string): never => {
    throw new KeyringError(`keyring entry ${position} (kid ${kid}): ${rule}`, position);
  };
  if (!BASE64.test(text)) fail('key must be base64 or base64url');
  const key = Buffer.from(text, 'base64');
  // Canonical form only: refuses stray padding and non-zero trailing bits that a lenient
  // decoder would silently drop.
  const canonical = key.toString('base64url');
  const given = text.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  if (canonical !== given) fail('key must be base64 or base64url');
  if (key.length !== KEY_LENGTH) fail(`key must be exactly ${KEY_LENGTH} bytes after base64`);
  return key;
}

/**
 * Parses `"<kid>:<base64 32-byte key>[,<kid>:<key>…]"`. The first entry is the active key.
 * Whitespace around entries is ignored. Throws `KeyringError` for an empty configuration,
 * an empty entry, a missing `:`, a malformed or duplicate key id, or a key that is not
 * exactly 32 bytes of base64/base64url.
 */
export function parseKeyring(spec: string): Keyring {
  if (spec.trim() === '') throw new KeyringError('keyring has no keys');
  const kids: string[] = [];
  const keys = new Map<string, Buffer>();
  spec.split(',').forEach((raw, index) => {
    const position = index + 1;
    const entry = raw.trim();
    if (entry === '') throw new KeyringError(`keyring entry ${position} is empty`, position);
    const colon = entry.indexOf(':');
    if (colon < 0) {
      throw new KeyringError(
        `keyring entry ${position} must be "<kid>:<base64 key>" (no ':' found)`,
        position,
      );
    }
    const kid = entry.slice(0, colon);
    assertKid(kid, position);
    if (keys.has(kid)) {
      throw new KeyringError(`keyring entry ${position}: duplicate key id ${kid}`, position);
    }
    keys.set(kid, decodeKey(entry.slice(colon + 1), kid, position));
    kids.push(kid);
  });
  const keyring = new KeyringImpl(kids);
  keysOf.set(keyring, keys);
  return keyring;
}

/**
 * The key bytes for a key id, or undefined when the keyring does not hold it. For the
 * cipher in this directory only; not exported from the package.
 */
export function keyringKey(keyring: Keyring, kid: string): Buffer | undefined {
  return keysOf.get(keyring)?.get(kid);
}

/**
 * A 32-byte key for one purpose (an HKDF-SHA256 `info` label), derived from the keyring's
 * active key: other code gets derived keys, never the sealing key itself.
 */
export function deriveActiveKey(keyring: Keyring, purpose: string): Buffer {
  const root = keyringKey(keyring, keyring.activeKid);
  if (!root) throw new Error('the keyring has no active key');
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), purpose, 32));
}
