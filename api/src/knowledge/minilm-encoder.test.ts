import assert from 'node:assert/strict';
import { meanPoolNormalize, padBatch } from './minilm-encoder.js';

describe('padBatch and meanPoolNormalize (sentence-transformers pooling)', function () {
  it('pads right with 0 and masks the padding', function () {
    const { ids, mask, types, length } = padBatch([
      [101, 7, 102],
      [101, 102],
    ]);
    assert.equal(length, 3);
    assert.deepEqual([...ids], [101n, 7n, 102n, 101n, 102n, 0n]);
    assert.deepEqual([...mask], [1n, 1n, 1n, 1n, 1n, 0n]);
    assert.deepEqual([...types], [0n, 0n, 0n, 0n, 0n, 0n]);
  });

  it('averages the unmasked tokens only, then scales to unit length', function () {
    // batch 2, length 2, dim 2; the second row's second token is padding (and huge).
    const hidden = Float32Array.of(3, 0, 3, 8, 1, 1, 1000, -1000);
    const mask = BigInt64Array.of(1n, 1n, 1n, 0n);
    const [a, b] = meanPoolNormalize(hidden, mask, 2, 2, 2);
    assert.deepEqual([...(a as Float32Array)], [Math.fround(0.6), Math.fround(0.8)]);
    assert.deepEqual(
      [...(b as Float32Array)],
      [Math.fround(Math.SQRT1_2), Math.fround(Math.SQRT1_2)],
    );
  });
});
