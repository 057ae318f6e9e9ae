import assert from 'node:assert/strict';
import { colorInputValue, draftOf, fontsOf, patchOf, translationChanges } from './settings-logic';
import type { SystemConfig } from './settings-types';

/** A configuration an organization changed (the draft round-trips every field). */
const STORED: SystemConfig = {
  retrieval_k: 4,
  rerank_top_n: 10,
  reranker_enabled: true,
  reranker_model: 'rr',
  embedding_model: 'e5',
  service_desk: { enabled: true, custom_gpt_id: 'g1', document_ids: ['d1'] },
};

describe('the settings pages’ logic', function () {
  it('patches only the configuration fields the form changed (empty text: null)', function () {
    assert.deepEqual(patchOf(STORED, draftOf(STORED)), {});
    const d = { ...draftOf(STORED), retrieval_k: '7', reranker_model: ' rr2 ' };
    assert.deepEqual(patchOf(STORED, d), {
      retrieval_k: 7,
      reranker_model: 'rr2',
    });
    const emptied = { ...draftOf(STORED), embedding_model: '', document_ids: 'a\n\n b ' };
    assert.deepEqual(patchOf(STORED, emptied), {
      embedding_model: null,
      service_desk: { document_ids: ['a', 'b'] },
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

  it('reads the fonts a theme may name from the API’s OpenAPI document', function () {
    const doc = {
      components: {
        schemas: {
          Theme: {
            properties: {
              font_family: { anyOf: [{ const: 'system-ui' }, { const: 'Inter' }] },
            },
          },
        },
      },
    };
    assert.deepEqual(fontsOf(doc, 'Inter'), ['system-ui', 'Inter']);
    assert.deepEqual(fontsOf(undefined, 'Lato'), ['Lato']);
  });
});
