import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { KeyringError } from './keyring-error.js';
import { keyringKey, parseKeyring } from './keyring.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const b64A = keyA.toString('base64');
const b64B = keyB.toString('base64');

/** Every text form a key could leak in. */
function keyTexts(key: Buffer): string[] {
  return [
    key.toString('base64'),
    key.toString('base64url'),
    key.toString('base64').replace(/=+$/, ''),
    key.toString('hex'),
  ];
}

function assertNoKeyIn(text: string, ...keys: Buffer[]): void {
  for (const key of keys) {
    for (const form of keyTexts(key)) assert.ok(!text.includes(form), `leaked key in: ${text}`);
  }
}

describe('keyring', function () {
  it('makes the first entry the active key and lets every entry decrypt', function () {
    const keyring = parseKeyring(`new:${b64A},old:${b64B}`);
    assert.equal(keyring.activeKid, 'new');
    assert.deepEqual(keyring.kids, ['new', 'old']);
    assert.equal(keyring.has('old'), true);
    assert.equal(keyring.has('other'), false);
    assert.deepEqual(keyringKey(keyring, 'new'), keyA);
    assert.deepEqual(keyringKey(keyring, 'old'), keyB);
    assert.equal(keyringKey(keyring, 'other'), undefined);
  });

  const accepted: [string, string][] = [
    ['padded base64', `k1:${b64A}`],
    ['base64url', `k1:${keyA.toString('base64url')}`],
    ['unpadded base64', `k1:${b64A.replace(/=+$/, '')}`],
    ['whitespace around entries', ` k1:${b64A} ,  k2:${b64B}\n`],
    ['a 32-character kid with _ and -', `${'a_-Z9'.repeat(6)}ab:${b64A}`],
  ];
  for (const [what, spec] of accepted) {
    it(`accepts ${what}`, function () {
      assert.equal(parseKeyring(spec).kids.length >= 1, true);
    });
  }

  it('decodes base64 and base64url spellings of a key to the same bytes', function () {
    const std = parseKeyring(`k:${b64A}`);
    const url = parseKeyring(`k:${keyA.toString('base64url')}`);
    assert.deepEqual(keyringKey(std, 'k'), keyringKey(url, 'k'));
  });

  const short = randomBytes(31);
  const long = randomBytes(33);
  const refused: [string, string, RegExp, Buffer[]][] = [
    ['an empty configuration', '', /no keys/, []],
    ['a blank configuration', '  ', /no keys/, []],
    ['an empty entry', `k1:${b64A},`, /entry 2 is empty/, [keyA]],
    ['an entry without a colon', b64A, /entry 1 .*no ':'/, [keyA]],
    ['an empty kid', `:${b64A}`, /entry 1: key id must match/, [keyA]],
    ['a kid of 33 characters', `${'a'.repeat(33)}:${b64A}`, /entry 1: key id/, [keyA]],
    ['a kid with a dot', `k.1:${b64A}`, /entry 1: key id/, [keyA]],
    ['a kid with a space', `k 1:${b64A}`, /entry 1: key id/, [keyA]],
    ['a duplicate kid', `k1:${b64A},k1:${b64B}`, /entry 2: duplicate key id k1/, [keyA, keyB]],
    ['a 31-byte key', `k1:${short.toString('base64')}`, /kid k1.*exactly 32 bytes/, [short]],
    ['a 33-byte key', `k1:${long.toString('base64')}`, /kid k1.*exactly 32 bytes/, [long]],
    ['an empty key', 'k1:', /kid k1.*base64/, []],
    ['a key with characters outside base64', `k1:${b64A.slice(0, 42)}!=`, /base64/, [keyA]],
    [
      'a key mixing base64 and base64url alphabets',
      'k1:' + 'A+_' + 'A'.repeat(40) + '=',
      /base64/,
      [],
    ],
    ['a key with misplaced padding', `k1:${b64A.slice(0, 20)}=${b64A.slice(20)}`, /base64/, [keyA]],
    ['a key with non-canonical trailing bits', `k1:${b64A.slice(0, 42)}B=`, /base64/, [keyA]],
  ];
  for (const [what, spec, message, keys] of refused) {
    it(`refuses ${what} with a KeyringError that shows no key material`, function () {
      let caught: unknown;
      try {
        parseKeyring(spec);
      } catch (error) {
        caught = error;
      }
      assert.ok(caught instanceof KeyringError, `expected KeyringError, got ${String(caught)}`);
      assert.match(caught.message, message);
      assertNoKeyIn(caught.message, ...keys);
      assertNoKeyIn(inspect(caught), ...keys);
      if (spec.includes(':') && spec.trim() !== '') {
        // Whatever follows the first colon is key material, even when malformed.
        const keyText = spec.slice(spec.indexOf(':') + 1).split(',')[0] ?? '';
        if (keyText.length > 8) assert.ok(!caught.message.includes(keyText), caught.message);
      } else if (spec.trim() !== '') {
        assert.ok(!caught.message.includes(spec), 'a colon-less entry is not echoed');
      }
    });
  }

  it('refuses a key id that holds the key when the colon is missing, by position only', function () {
    assert.throws(
      () => parseKeyring(`ok:${b64A},${b64B}`),
      (error: unknown) =>
        error instanceof KeyringError && error.position === 2 && !error.message.includes(b64B),
    );
  });

  it('shows only key ids in inspect, JSON, string conversion and property listing', function () {
    const keyring = parseKeyring(`new:${b64A},old:${b64B}`);
    const views = [
      inspect(keyring),
      inspect(keyring, { showHidden: true, depth: Infinity }),
      inspect(keyring, { customInspect: false, showHidden: true, depth: Infinity }),
      inspect({ nested: { keyring } }, { depth: Infinity }),
      JSON.stringify(keyring),
      JSON.stringify({ keyring }),
      String(keyring),
      `${keyring.toString()}`,
      JSON.stringify({ ...keyring }),
    ];
    for (const view of views) {
      assertNoKeyIn(view, keyA, keyB);
      assert.ok(view.includes('new') && view.includes('old'), view);
    }
    assert.deepEqual(Object.keys(keyring), ['activeKid', 'kids']);
    assert.deepEqual(JSON.parse(JSON.stringify(keyring)), {
      activeKid: 'new',
      kids: ['new', 'old'],
    });
  });

  it('cannot be changed after parsing', function () {
    const keyring = parseKeyring(`k1:${b64A}`);
    assert.equal(Reflect.set(keyring, 'activeKid', 'other'), false);
    assert.equal(Reflect.set(keyring.kids, 0, 'other'), false);
    assert.throws(() => (keyring.kids as string[]).push('other'), TypeError);
    assert.equal(keyring.activeKid, 'k1');
    assert.deepEqual(keyring.kids, ['k1']);
  });
});
