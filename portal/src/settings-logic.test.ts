import assert from 'node:assert/strict';
import { colorInputValue, draftOf, patchOf, translationChanges } from './settings-logic';
import type { SystemConfig } from './settings-types';

const STORED: SystemConfig = {
  retrieval_k: 3,
  rerank_top_n: null,
  reranker_enabled: false,
  reranker_model: null,
  embedding_model: null,
  service_desk: { enabled: false, custom_gpt_id: null, document_ids: null },
};

describe('the settings pages’ logic', function () {
  it('patches only the configuration fields the form changed (empty text: null)', function () {
    assert.deepEqual(patchOf(STORED, draftOf(STORED)), {});
    const d = {
      ...draftOf(STORED),
      retrieval_k: '7',
      reranker_model: ' rr ',
      document_ids: 'a\n\n b ',
    };
    assert.deepEqual(patchOf(STORED, d), {
      retrieval_k: 7,
      reranker_model: 'rr',
      service_desk: { document_ids: ['a', 'b'] },
    });
    const stored = { ...STORED, embedding_model: 'e5' };
    assert.deepEqual(patchOf(stored, { ...draftOf(stored), embedding_model: '' }), {
      embedding_model: null,
    });
  });

  it('sends new and changed overrides, and null for a cleared one', function () {
    assert.deepEqual(translationChanges({ a: 'A', b: 'B' }, { a: '', b: 'B', c: 'C', d: '' }), {
      a: null,
      c: 'C',
    });
  });

  it('holds any API colour in a colour input (#rrggbb)', function () {
    assert.equal(colorInputValue('#AbC'), '#aabbcc');
    assert.equal(colorInputValue('#abcd'), '#aabbcc');
    assert.equal(colorInputValue('#112233'), '#112233');
    assert.equal(colorInputValue('#11223344'), '#112233');
  });
});
