import assert from 'node:assert/strict';
import { tokenIsFresh } from './tokens.js';

describe('token freshness', function () {
  const token = { obtainedAtMs: 1_000_000, expiresInSeconds: 300 };

  it('uses a token until 30 seconds before it expires', function () {
    assert.equal(tokenIsFresh(token, 1_000_000), true);
    assert.equal(tokenIsFresh(token, 1_000_000 + 269_999), true);
    assert.equal(tokenIsFresh(token, 1_000_000 + 270_000), false);
  });

  it('never uses a token whose lifetime is shorter than the margin', function () {
    assert.equal(tokenIsFresh({ obtainedAtMs: 0, expiresInSeconds: 20 }, 0), false);
  });
});
