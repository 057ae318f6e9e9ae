import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { parseKeyring } from './keyring.js';
import { needsReseal, openSecret, sealSecret } from './secret-box.js';
import { SecretOpenError } from './secret-open-error.js';
import type { SecretOpenFailure } from './secret-open-error.js';

const oldKey = randomBytes(32).toString('base64');
const newKey = randomBytes(32).toString('base64');
const oldRing = parseKeyring(`old:${oldKey}`);
const rotated = parseKeyring(`new:${newKey},old:${oldKey}`);
const newOnly = parseKeyring(`new:${newKey}`);
const AAD = 'mcp-credential:srv-1:user-1';
const PLAINTEXT = 'ghp_SuperSecretUpstreamToken123';

/** Runs `open` and returns the SecretOpenError it throws, failing on anything else. */
function openError(open: () => unknown): SecretOpenError {
  try {
    open();
  } catch (error) {
    assert.ok(error instanceof SecretOpenError, `expected SecretOpenError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected openSecret to throw');
}

/** Replaces part `index` of an envelope. */
function withPart(sealed: string, index: number, replace: (part: string) => string): string {
  const parts = sealed.split('.');
  parts[index] = replace(parts[index] ?? '');
  return parts.join('.');
}

/** Applies `change` to the bytes of a base64url part. */
function bytes(change: (b: Buffer) => Buffer): (part: string) => string {
  return (part) => change(Buffer.from(part, 'base64url')).toString('base64url');
}

/** Flips one bit of a base64url part, keeping it canonical. */
function flip(part: string): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  return bytes.toString('base64url');
}

describe('secret box', function () {
  const plaintexts: [string, string][] = [
    ['an empty string', ''],
    ['a static token', PLAINTEXT],
    ['a 4096-character string', 'x'.repeat(4096)],
    [
      'unicode text with emoji and combining marks',
      'päßwörd 🔑 密钥 e\u0301 \u{1F468}\u200D\u{1F469}',
    ],
    [
      'a serialised OAuth token set',
      JSON.stringify({ access_token: 'at', refresh_token: 'rt', expires_at: 1 }),
    ],
  ];
  for (const [what, plaintext] of plaintexts) {
    it(`round-trips ${what}`, function () {
      const sealed = sealSecret(rotated, plaintext, AAD);
      assert.equal(openSecret(rotated, sealed, AAD), plaintext);
    });
  }

  it('writes a v1.<kid>.<iv>.<ciphertext>.<tag> envelope with a 12-byte IV and 16-byte tag', function () {
    const sealed = sealSecret(rotated, PLAINTEXT, AAD);
    const [version, kid, iv, ciphertext, tag, ...rest] = sealed.split('.');
    assert.equal(version, 'v1');
    assert.equal(kid, 'new');
    assert.equal(Buffer.from(iv ?? '', 'base64url').length, 12);
    assert.equal(Buffer.from(ciphertext ?? '', 'base64url').length, Buffer.byteLength(PLAINTEXT));
    assert.equal(Buffer.from(tag ?? '', 'base64url').length, 16);
    assert.deepEqual(rest, []);
    assert.match(sealed, /^[A-Za-z0-9_.-]+$/);
    assert.ok(!sealed.includes(PLAINTEXT));
  });

  it('uses a fresh IV every time, so the same plaintext seals to different envelopes', function () {
    const envelopes = Array.from({ length: 50 }, () => sealSecret(rotated, PLAINTEXT, AAD));
    assert.equal(new Set(envelopes).size, envelopes.length);
    assert.equal(new Set(envelopes.map((e) => e.split('.')[2])).size, envelopes.length);
    for (const sealed of envelopes) assert.equal(openSecret(rotated, sealed, AAD), PLAINTEXT);
  });

  const sealed = sealSecret(rotated, PLAINTEXT, AAD);
  const tampered: [string, string, SecretOpenFailure][] = [
    ['a changed version', withPart(sealed, 0, () => 'v2'), 'malformed'],
    ['a missing version', sealed.slice(sealed.indexOf('.') + 1), 'malformed'],
    [
      'a kid switched to another key of the keyring',
      withPart(sealed, 1, () => 'old'),
      'authentication_failed',
    ],
    ['a kid the keyring does not hold', withPart(sealed, 1, () => 'gone'), 'unknown_kid'],
    ['a malformed kid', withPart(sealed, 1, () => 'k:1'), 'malformed'],
    ['a flipped IV bit', withPart(sealed, 2, flip), 'authentication_failed'],
    [
      'a shortened IV',
      withPart(
        sealed,
        2,
        bytes((b) => b.subarray(0, 11)),
      ),
      'malformed',
    ],
    ['a flipped ciphertext bit', withPart(sealed, 3, flip), 'authentication_failed'],
    [
      'a truncated ciphertext',
      withPart(
        sealed,
        3,
        bytes((b) => b.subarray(0, -3)),
      ),
      'authentication_failed',
    ],
    [
      'an extended ciphertext',
      withPart(
        sealed,
        3,
        bytes((b) => Buffer.concat([b, Buffer.alloc(3)])),
      ),
      'authentication_failed',
    ],
    ['a flipped tag bit', withPart(sealed, 4, flip), 'authentication_failed'],
    [
      'a truncated tag',
      withPart(
        sealed,
        4,
        bytes((b) => b.subarray(0, 12)),
      ),
      'malformed',
    ],
    ['a non-base64url character', withPart(sealed, 3, (p) => `${p.slice(0, -1)}+`), 'malformed'],
    ['a padded part', withPart(sealed, 4, (p) => `${p}==`), 'malformed'],
    ['an extra part', `${sealed}.AAAA`, 'malformed'],
    ['a missing part', sealed.split('.').slice(0, 4).join('.'), 'malformed'],
    ['the empty string', '', 'malformed'],
    ['the plaintext itself', PLAINTEXT, 'malformed'],
  ];
  for (const [what, envelope, reason] of tampered) {
    it(`refuses an envelope with ${what} as ${reason}`, function () {
      assert.notEqual(envelope, sealed);
      const error = openError(() => openSecret(rotated, envelope, AAD));
      assert.equal(error.reason, reason);
    });
  }

  const wrongAad: [string, string][] = [
    ['another user', 'mcp-credential:srv-1:user-2'],
    ['another server', 'mcp-credential:srv-2:user-1'],
    ['a prefix of the row context', 'mcp-credential:srv-1:user-'],
    ['an empty context', ''],
  ];
  for (const [what, aad] of wrongAad) {
    it(`refuses to open an envelope copied to ${what}`, function () {
      const error = openError(() => openSecret(rotated, sealed, aad));
      assert.equal(error.reason, 'authentication_failed');
    });
  }

  it('refuses to seal without a row context', function () {
    assert.throws(() => sealSecret(rotated, PLAINTEXT, ''), TypeError);
  });

  it('opens an old-key envelope after rotation, asks for a reseal, and reseals with the new key', function () {
    const old = sealSecret(oldRing, PLAINTEXT, AAD);
    assert.equal(old.split('.')[1], 'old');
    assert.equal(needsReseal(oldRing, old), false);
    assert.equal(needsReseal(rotated, old), true);
    const plaintext = openSecret(rotated, old, AAD);
    assert.equal(plaintext, PLAINTEXT);
    const resealed = sealSecret(rotated, plaintext, AAD);
    assert.equal(resealed.split('.')[1], 'new');
    assert.equal(needsReseal(rotated, resealed), false);
    assert.equal(openSecret(newOnly, resealed, AAD), PLAINTEXT);
  });

  it('refuses an envelope whose key was retired from the keyring as unknown_kid', function () {
    const old = sealSecret(oldRing, PLAINTEXT, AAD);
    const error = openError(() => openSecret(newOnly, old, AAD));
    assert.equal(error.reason, 'unknown_kid');
    assert.match(error.message, /unknown key id old/);
  });

  it('refuses an envelope sealed under the same kid with a different key', function () {
    const impostor = parseKeyring(`new:${randomBytes(32).toString('base64')}`);
    const error = openError(() => openSecret(impostor, sealed, AAD));
    assert.equal(error.reason, 'authentication_failed');
  });

  it('throws SecretOpenError from needsReseal for a value that is not an envelope', function () {
    assert.equal(openError(() => needsReseal(rotated, 'not-an-envelope')).reason, 'malformed');
  });

  it('never puts the plaintext, a key or the envelope in an error', function () {
    const failures = [
      ...tampered.map(
        ([, envelope]) =>
          () =>
            openSecret(rotated, envelope, AAD),
      ),
      () => openSecret(rotated, sealed, 'mcp-credential:srv-9:user-9'),
      () => openSecret(newOnly, sealSecret(oldRing, PLAINTEXT, AAD), AAD),
    ];
    const secrets = [
      PLAINTEXT,
      oldKey,
      newKey,
      Buffer.from(oldKey, 'base64').toString('base64url'),
      Buffer.from(newKey, 'base64').toString('base64url'),
      sealed.split('.')[3] ?? '',
    ];
    for (const fail of failures) {
      const error = openError(fail);
      for (const text of [error.message, String(error), inspect(error), error.stack ?? '']) {
        for (const secret of secrets) assert.ok(!text.includes(secret), `leaked in: ${text}`);
      }
    }
  });
});
