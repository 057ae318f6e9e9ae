import assert from 'node:assert/strict';
import { MalformedBackendAnswer, vectorsOf } from './openai-embedder.js';

describe('vectorsOf: an /embeddings answer, checked', function () {
  it('places each vector by its index, not by its position in data', function () {
    const answer = {
      data: [
        { index: 1, embedding: [0, 1] },
        { index: 0, embedding: [1, 0] },
      ],
    };
    assert.deepEqual(vectorsOf(answer, 2, 2), [Float32Array.of(1, 0), Float32Array.of(0, 1)]);
  });

  it('takes the position when a backend leaves index out', function () {
    assert.deepEqual(vectorsOf({ data: [{ embedding: [1, 2] }] }, 1, 2), [Float32Array.of(1, 2)]);
  });

  const broken: [string, unknown][] = [
    ['no data', { object: 'list' }],
    ['fewer vectors than texts', { data: [{ index: 0, embedding: [1, 2] }] }],
    [
      'a repeated index',
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 0, embedding: [1, 2] },
        ],
      },
    ],
    [
      'an index past the texts',
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 2, embedding: [1, 2] },
        ],
      },
    ],
    [
      'a vector of another length',
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [1] },
        ],
      },
    ],
    [
      'a base64 vector',
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: 'AAAA' },
        ],
      },
    ],
    [
      'a null in a vector',
      {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [1, null] },
        ],
      },
    ],
  ];
  for (const [what, answer] of broken) {
    it(`refuses an answer with ${what} as MalformedBackendAnswer`, function () {
      assert.throws(() => vectorsOf(answer, 2, 2), MalformedBackendAnswer);
    });
  }
});
