import assert from 'node:assert/strict';
import { backoffMs } from './files-queue.js';

describe('job retry backoff', function () {
  const s = { backoffBaseMs: 2000, backoffMaxMs: 300_000 };
  it('waits the base after the first failed attempt and doubles after each next one', function () {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => backoffMs(n, s)),
      [2000, 4000, 8000, 16_000, 32_000],
    );
  });
  it('never waits longer than the cap', function () {
    assert.equal(backoffMs(20, s), 300_000);
  });
});
