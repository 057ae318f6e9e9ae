import assert from 'node:assert/strict';
import { DEFAULT_CONFIG, merged, ruleViolations } from './config.js';
import type { ConfigLookups } from './config-store.js';

/** A catalogue holding `embedding` and `rerank` models of these names, and no agents. */
const lookups = (models: { embedding?: string[]; rerank?: string[] } = {}): ConfigLookups => ({
  isEmbeddingModel: (name) => Promise.resolve((models.embedding ?? []).includes(name)),
  isRerankModel: (name) => Promise.resolve((models.rerank ?? []).includes(name)),
  isAgent: () => Promise.resolve(false),
});

describe('system configuration: embedding_model (docs/adr/0034)', function () {
  it('defaults to null, the local model', function () {
    assert.equal(DEFAULT_CONFIG.embedding_model, null);
    assert.deepEqual(
      merged(DEFAULT_CONFIG, { retrieval_k: 5 }).embedding_model,
      null,
      'a patch without it keeps it',
    );
  });

  it('takes an active catalogue model of mode embedding, or null', async function () {
    const c = merged(DEFAULT_CONFIG, { embedding_model: 'remote-minilm' });
    assert.deepEqual(await ruleViolations(c, lookups({ embedding: ['remote-minilm'] })), []);
    const back = merged(c, { embedding_model: null });
    assert.deepEqual(await ruleViolations(back, lookups()), []);
  });

  it('refuses another name, naming embedding_model (a rerank model is not an embedding one)', async function () {
    const c = merged(DEFAULT_CONFIG, { embedding_model: 'ranker' });
    assert.deepEqual(
      (await ruleViolations(c, lookups({ rerank: ['ranker'] }))).map((e) => e.field),
      ['embedding_model'],
    );
  });
});
