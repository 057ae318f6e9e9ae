import assert from 'node:assert/strict';
import {
  API_KEY_PREFIX,
  apiKeyMatches,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
  parseApiKey,
} from './api-key-format.js';

describe('API key format', function () {
  it('generates sk-svc-v1- keys with 256 random bits, a listing prefix and a SHA-256 hash', function () {
    const k = generateApiKey();
    assert.match(k.key, /^sk-svc-v1-[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(k.key.slice(API_KEY_PREFIX.length), 'base64url').length, 32);
    assert.equal(k.prefix, k.key.slice(0, API_KEY_PREFIX.length + 8));
    assert.equal(k.hash, hashApiKey(k.key));
    assert.notEqual(generateApiKey().key, k.key);
  });

  it('matches a key only against its own hash', function () {
    const a = generateApiKey();
    const b = generateApiKey();
    assert.equal(apiKeyMatches(a.key, a.hash), true);
    assert.equal(apiKeyMatches(b.key, a.hash), false);
    assert.equal(apiKeyMatches(a.key, 'abcd'), false, 'a short stored hash never matches');
  });

  const malformed: [string, string][] = [
    ['no prefix', 'abc'],
    ['an older prefix', 'sk-svc-v0-' + 'a'.repeat(43)],
    ['a short body', API_KEY_PREFIX + 'a'.repeat(42)],
    ['a long body', API_KEY_PREFIX + 'a'.repeat(44)],
    ['a body with a dot', API_KEY_PREFIX + 'a'.repeat(42) + '.'],
  ];
  for (const [what, value] of malformed) {
    it(`refuses ${what} as malformed`, function () {
      assert.equal(parseApiKey(value), undefined);
    });
  }

  it('recognises the platform prefix in a bearer value', function () {
    assert.equal(looksLikeApiKey(generateApiKey().key), true);
    assert.equal(looksLikeApiKey('eyJhbGciOi...'), false);
  });
});
