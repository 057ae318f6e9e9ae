import assert from 'node:assert/strict';
import { resultsOf } from './remote-reranker.js';
import {
  bestFirst,
  checkRerankRequest,
  MAX_RERANK_DOCUMENTS,
  RerankBadRequest,
} from './reranker.js';
import { MalformedBackendAnswer } from './openai-embedder.js';

describe('checkRerankRequest: an empty or invalid query or document list is rerank_bad_request', function () {
  const bad: [string, unknown, RegExp][] = [
    ['no body', undefined, /query must be a string/],
    ['a missing query', { documents: ['a'] }, /query must be a string/],
    ['a query that is a number', { query: 3, documents: ['a'] }, /query must be a string/],
    ['an empty query', { query: '', documents: ['a'] }, /query must not be empty/],
    ['a blank query', { query: ' \n\t', documents: ['a'] }, /query must not be empty/],
    [
      'a query of 8193 characters',
      { query: 'q'.repeat(8193), documents: ['a'] },
      /query must be at most 8192/,
    ],
    ['missing documents', { query: 'q' }, /documents must be a list of strings/],
    [
      'documents as a string',
      { query: 'q', documents: 'a' },
      /documents must be a list of strings/,
    ],
    ['an empty document list', { query: 'q', documents: [] }, /documents must not be empty/],
    ['a null document', { query: 'q', documents: ['a', null] }, /documents\[1\] must be a string/],
    [
      'an object document',
      { query: 'q', documents: [{ text: 'a' }] },
      /documents\[0\] must be a string/,
    ],
    [
      'too many documents',
      { query: 'q', documents: new Array(MAX_RERANK_DOCUMENTS + 1).fill('d') },
      /at most 1000 entries/,
    ],
    [
      'a document of 100 001 characters',
      { query: 'q', documents: ['d'.repeat(100_001)] },
      /documents\[0\] must be at most 100000/,
    ],
    [
      'top_n 0',
      { query: 'q', documents: ['a'], topN: 0 },
      /top_n must be an integer of at least 1/,
    ],
    ['top_n 1.5', { query: 'q', documents: ['a'], topN: 1.5 }, /top_n/],
    ['top_n as a string', { query: 'q', documents: ['a'], topN: '2' }, /top_n/],
  ];
  for (const [what, req, message] of bad) {
    it(`refuses ${what}`, function () {
      assert.throws(
        () => checkRerankRequest(req),
        (e: unknown) => e instanceof RerankBadRequest && message.test(e.message),
      );
    });
  }

  it('accepts a query with documents (blank documents too), and top_n above their count', function () {
    assert.deepEqual(checkRerankRequest({ query: 'q', documents: ['a', ''], topN: 9 }), {
      query: 'q',
      documents: ['a', ''],
      topN: 9,
    });
  });
});

describe('bestFirst', function () {
  it('orders by score, keeps the documents’ order on ties, and cuts to top_n', function () {
    assert.deepEqual(bestFirst([0.1, 0.9, 0.5, 0.9], 3), [
      { index: 1, relevanceScore: 0.9 },
      { index: 3, relevanceScore: 0.9 },
      { index: 2, relevanceScore: 0.5 },
    ]);
    assert.equal(bestFirst([1, 2], undefined).length, 2);
  });
});

describe('resultsOf: a /rerank answer, checked', function () {
  it('answers the results best first, at most top_n, whatever order the backend used', function () {
    const answer = {
      results: [
        { index: 2, relevance_score: 0.1 },
        { index: 0, relevance_score: 0.8 },
        { index: 1, relevance_score: 0.3 },
      ],
    };
    assert.deepEqual(resultsOf(answer, 3, 2), [
      { index: 0, relevanceScore: 0.8 },
      { index: 1, relevanceScore: 0.3 },
    ]);
  });

  it('answers only the documents the backend scored', function () {
    assert.deepEqual(resultsOf({ results: [{ index: 1, relevance_score: -2 }] }, 3, undefined), [
      { index: 1, relevanceScore: -2 },
    ]);
  });

  const broken: [string, unknown][] = [
    ['no results', {}],
    ['an index past the documents', { results: [{ index: 3, relevance_score: 1 }] }],
    ['a negative index', { results: [{ index: -1, relevance_score: 1 }] }],
    [
      'a repeated index',
      {
        results: [
          { index: 0, relevance_score: 1 },
          { index: 0, relevance_score: 2 },
        ],
      },
    ],
    ['a missing score', { results: [{ index: 0 }] }],
    ['a score that is a string', { results: [{ index: 0, relevance_score: '1' }] }],
  ];
  for (const [what, answer] of broken) {
    it(`refuses an answer with ${what} as MalformedBackendAnswer`, function () {
      assert.throws(() => resultsOf(answer, 3, undefined), MalformedBackendAnswer);
    });
  }
});
