import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hashStateToken, newStateToken } from './state-token.js';

describe('state tokens', () => {
  it('are 256 random bits in base64url, never twice the same', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newStateToken()));
    assert.equal(tokens.size, 1000);
    for (const t of tokens) assert.match(t, /^[A-Za-z0-9_-]{43}$/);
  });

  it('are stored as their SHA-256 in hex', () => {
    const t = newStateToken();
    assert.equal(hashStateToken(t), createHash('sha256').update(t).digest('hex'));
    assert.match(hashStateToken(t), /^[0-9a-f]{64}$/);
  });
});
