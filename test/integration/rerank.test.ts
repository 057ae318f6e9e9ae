import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalEmbedder, LocalReranker } from '@aiplane/api';
import { miniLmDir, startEmbeddingsTestBackend, type EmbeddingsTestBackend } from '@aiplane/hack';
import { assertCode } from './api-helpers.js';
import {
  type Acting,
  type FileNode,
  fileWithStatus,
  type GroupedFilesSuite,
  startGroupedFilesSuite,
  unique,
} from './files-helpers.js';

const CORPUS = join(import.meta.dirname, 'fixtures', 'knowledge');
const PASSAGES = [
  'The mitochondrion is the organelle that produces most of the cell’s ATP.',
  'Sourdough bread rises because wild yeast and lactobacilli ferment the dough.',
  'A telescope’s aperture decides how much light it can gather from faint stars.',
  'Honey bees communicate the direction of flowers with a waggle dance.',
];

interface Ranked {
  model: string;
  results: { index: number; relevance_score: number; document?: { text: string } }[];
}
interface Hit {
  text: string;
  score: number;
}

/**
 * The reranker over HTTP (issue 18; docs/adr/0031 "The rerank route"): `POST /v1/rerank` in
 * the common /rerank shape, answered by a catalogue rerank model (a real /rerank server serving
 * the local model) or the local default, and collection search reranked when `/v1/config`
 * enables it, on the real stack.
 */
describe('the reranker through the API: POST /v1/rerank and reranked collection search', function () {
  this.timeout(300_000);
  let suite: GroupedFilesSuite | undefined;
  let backend: EmbeddingsTestBackend | undefined;
  let embedder: LocalEmbedder | undefined;
  let local: LocalReranker;
  let member: Acting;
  let admin: Acting;
  const modelName = unique('rerank-model');
  const chatName = unique('chat-model');

  const rerank = (body: unknown) => member.call('POST', '/v1/rerank', body);
  const setConfig = async (patch: Record<string, unknown>) => {
    const r = await admin.call('PATCH', '/v1/config', patch);
    assert.equal(r.status, 200, r.text);
  };
  const rerankRequests = () => (backend?.requests ?? []).filter((r) => r.path.endsWith('/rerank'));

  before(async function () {
    embedder = await LocalEmbedder.start({ modelDir: miniLmDir(), batchSize: 8 });
    local = new LocalReranker(embedder);
    backend = await startEmbeddingsTestBackend({ embedder, reranker: local });
    suite = await startGroupedFilesSuite('rerank', 'rerank-team', {
      AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
      AIPLANE_INFERENCE_RETRY_BASE_MS: '1',
    });
    ({ member, admin } = suite);
    for (const [name, mode] of [
      [modelName, 'rerank'],
      [chatName, 'chat'],
    ] as const) {
      const r = await admin.call('POST', '/v1/models', {
        name,
        mode,
        base_url: backend.baseUrl,
        backend_model: `${mode}-served`,
      });
      assert.equal(r.status, 201, r.text);
    }
  });

  after(async function () {
    await admin
      ?.call('PATCH', '/v1/config', {
        reranker_enabled: false,
        rerank_top_n: null,
        reranker_model: null,
      })
      .catch(() => undefined);
    await suite?.close();
    await backend?.close();
    await embedder?.close();
  });

  it('answers with the catalogue rerank model it names, through its /rerank backend, in the common shape', async function () {
    const before = rerankRequests().length;
    const r = await rerank({
      model: modelName,
      query: 'Which organelle makes ATP?',
      documents: PASSAGES,
      top_n: 2,
      return_documents: true,
    });
    assert.equal(r.status, 200, r.text);
    const answer = r.json() as Ranked;
    const expected = await local.rerank({
      query: 'Which organelle makes ATP?',
      documents: PASSAGES,
      topN: 2,
    });
    assert.equal(answer.model, modelName);
    assert.deepEqual(
      answer.results.map((x) => [x.index, x.relevance_score]),
      expected.map((x) => [x.index, x.relevanceScore]),
    );
    assert.equal(answer.results[0]?.index, 0, 'the ATP passage first');
    assert.equal(answer.results[0]?.document?.text, PASSAGES[0]);
    const sent = rerankRequests().slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]?.body, {
      model: 'rerank-served',
      query: 'Which organelle makes ATP?',
      documents: PASSAGES,
      top_n: 2,
      return_documents: false,
    });
  });

  it('answers with the local default when no model is named or selected, and with the selected one when it is', async function () {
    const before = rerankRequests().length;
    const r = await rerank({ query: 'bees and flowers', documents: PASSAGES });
    assert.equal(r.status, 200, r.text);
    const answer = r.json() as Ranked;
    assert.equal(answer.model, 'all-MiniLM-L6-v2');
    assert.equal(answer.results.length, PASSAGES.length);
    assert.equal(answer.results[0]?.index, 3, 'the bees passage first');
    assert.equal(answer.results[0]?.document, undefined, 'no text unless return_documents');
    assert.equal(rerankRequests().length, before, 'no backend called');

    await setConfig({ reranker_model: modelName });
    try {
      const selected = await rerank({ query: 'bees and flowers', documents: PASSAGES });
      assert.equal(selected.status, 200, selected.text);
      assert.equal((selected.json() as Ranked).model, modelName);
      assert.equal(rerankRequests().length, before + 1, 'the selected model’s backend called');
    } finally {
      await setConfig({ reranker_model: null });
    }
  });

  const bad: [string, unknown][] = [
    ['an empty query', { query: '', documents: PASSAGES }],
    ['a blank query', { query: '   ', documents: PASSAGES }],
    ['no query', { documents: PASSAGES }],
    ['a query that is not a string', { query: 7, documents: PASSAGES }],
    ['an empty document list', { query: 'q', documents: [] }],
    ['documents that are not a list', { query: 'q', documents: 'one' }],
    ['a document that is not a string', { query: 'q', documents: ['a', 2] }],
    ['top_n of 0', { query: 'q', documents: PASSAGES, top_n: 0 }],
    ['a model that is not a string', { model: 3, query: 'q', documents: PASSAGES }],
  ];
  for (const [what, body] of bad) {
    it(`answers 400 rerank_bad_request for ${what}, calling no backend`, async function () {
      const before = rerankRequests().length;
      assertCode(
        await rerank({ model: modelName, ...(body as object) }),
        400,
        'rerank_bad_request',
      );
      assert.equal(rerankRequests().length, before);
    });
  }

  it('answers 400 rerank_bad_request when the backend refuses the request as bad, and 503 when it stays down', async function () {
    backend?.failNext(1, 400);
    assertCode(
      await rerank({ model: modelName, query: 'q', documents: PASSAGES }),
      400,
      'rerank_bad_request',
    );
    backend?.failNext(4, 503); // the first call and its three retries
    assertCode(
      await rerank({ model: modelName, query: 'q', documents: PASSAGES }),
      503,
      'model_backend_unavailable',
    );
  });

  it('answers 404 model_not_found for a model that is not a rerank model of the catalogue', async function () {
    for (const model of [unique('no-such-model'), chatName]) {
      assertCode(await rerank({ model, query: 'q', documents: PASSAGES }), 404, 'model_not_found');
    }
  });

  it('reranks collection search with the selected model when enabled: rerank_top_n results, in the backend’s order and scores', async function () {
    const upload = async (name: string): Promise<FileNode> => {
      const r = await member.upload({
        folder_id: 'null',
        file: {
          data: readFileSync(join(CORPUS, name)),
          filename: `${unique(name.replace('.md', ''))}.md`,
          type: 'text/markdown',
        },
      });
      assert.equal(r.status, 201, r.text);
      return fileWithStatus(member, (r.json() as FileNode).id, 'RAG Available');
    };
    await upload('bees-and-garden.md');
    await upload('home-baker.md');
    const search = async (): Promise<Hit[]> => {
      const r = await member.call('POST', '/v1/collections/documents/search', {
        query: 'How do bees tell each other where flowers are?',
      });
      assert.equal(r.status, 200, r.text);
      return (r.json() as { results: Hit[] }).results;
    };
    const before = rerankRequests().length;
    assert.equal((await search()).length, 3, 'retrieval_k without the reranker');
    assert.equal(rerankRequests().length, before);

    await setConfig({ reranker_model: modelName, reranker_enabled: true, rerank_top_n: 2 });
    try {
      const hits = await search();
      const sent = rerankRequests().slice(before);
      assert.equal(sent.length, 1, 'the selected model’s backend reranked the candidates');
      const body = sent[0]?.body as { query: string; documents: string[]; top_n: number };
      assert.equal(body.top_n, 2);
      assert.ok(body.documents.length > 2, `${body.documents.length} candidates`);
      assert.equal(hits.length, 2, 'rerank_top_n results');
      const ranked = await local.rerank({ query: body.query, documents: body.documents, topN: 2 });
      assert.deepEqual(
        hits.map((h) => [h.text, h.score]),
        ranked.map((x) => [body.documents[x.index], x.relevanceScore]),
      );

      backend?.failNext(4, 503);
      const down = await member.call('POST', '/v1/collections/documents/search', {
        query: 'bees',
      });
      assertCode(down, 503, 'model_backend_unavailable');
    } finally {
      await setConfig({ reranker_enabled: false, rerank_top_n: null, reranker_model: null });
    }
  });
});
