// The knowledge engines with the real model (docs/adr/0031): all-MiniLM-L6-v2 in ONNX Runtime
// as hack/lib/install-models.sh extracts it, the OpenAI-compatible embeddings client and the
// /rerank client against a real HTTP server serving that model, and extraction and chunking
// feeding them. Nothing here needs the cluster; it is an integration test for the model that
// setup installs and the loopback servers it starts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  chunkText,
  cosine,
  engineApiError,
  extractText,
  LOCAL_EMBEDDING_MODEL,
  LocalEmbedder,
  LocalReranker,
  MINILM_MAX_TOKENS,
  MiniLmEncoder,
  OpenAiEmbedder,
  RemoteReranker,
  RerankBadRequest,
} from '@aiplane/api';
import { ApiError } from '@aiplane/lib/errors';
import { createPinnedFetch } from '@aiplane/lib/mcp';
import {
  miniLmDir,
  repoRoot,
  startEmbeddingsTestBackend,
  type EmbeddingsTestBackend,
} from '@aiplane/hack';

interface Reference {
  vectors: { text: string; tokens: number; embedding: number[] }[];
}
const reference = JSON.parse(
  readFileSync(join(repoRoot, 'api/src/knowledge/testdata/minilm-reference.json'), 'utf8'),
) as Reference;

/** Paragraphs written for these tests, one topic each. */
const PASSAGES = [
  'The Eiffel Tower was finished in 1889 for the World’s Fair in Paris. Gustave Eiffel’s company built the wrought-iron lattice, which stands about 330 metres tall.',
  'Photosynthesis turns light, water and carbon dioxide into glucose and oxygen. It happens in the chloroplasts of plant cells, where chlorophyll absorbs mostly red and blue light.',
  'A Kubernetes Deployment keeps a number of identical pods running. When a node fails, the controller creates replacement pods elsewhere to restore the desired replica count.',
  'Sourdough bread rises thanks to a starter of wild yeast and lactic acid bacteria. Bakers feed the starter with flour and water and let the dough ferment slowly overnight.',
  'The mitochondrion produces most of a cell’s supply of adenosine triphosphate, the molecule that carries energy. It has its own small circular genome.',
];

const maxAbsDiff = (a: Float32Array, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i += 1)
    m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
};
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

function apiErrorOf(err: unknown, context: 'embed' | 'rerank' = 'embed'): ApiError {
  const mapped = engineApiError(err, context);
  assert.ok(mapped instanceof ApiError, `mapped ${String(err)}`);
  return mapped;
}

describe('knowledge engines with all-MiniLM-L6-v2', function () {
  let embedder: LocalEmbedder;
  // The remote clients dial through the pool the API gives them (loopback allowed for tests).
  const http = createPinnedFetch({ allowLoopback: true });

  before(async function () {
    embedder = await LocalEmbedder.start({ modelDir: miniLmDir(), batchSize: 4 });
  });
  after(async function () {
    await embedder?.close();
    await http.close();
  });

  describe('the local embedder (ONNX Runtime in a worker thread)', function () {
    it('answers one 384-dimensional unit vector per text, in order, and nothing for no texts', async function () {
      assert.equal(embedder.model, LOCAL_EMBEDDING_MODEL);
      assert.equal(embedder.dimensions, 384);
      assert.equal(embedder.maxTokens, MINILM_MAX_TOKENS);
      const vectors = await embedder.embed(PASSAGES);
      assert.equal(vectors.length, PASSAGES.length);
      for (const v of vectors) {
        assert.equal(v.length, 384);
        assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
      }
      assert.deepEqual(await embedder.embed([]), []);
      const [single] = await embedder.embed([PASSAGES[2] as string]);
      assert.ok(maxAbsDiff(single as Float32Array, vectors[2] as Float32Array) < 1e-6);
    });

    it('gives the vectors sentence-transformers gives: a reference from Python onnxruntime and Hugging Face tokenizers, unicode and a text past 256 tokens included', async function () {
      const vectors = await embedder.embed(reference.vectors.map((r) => r.text));
      reference.vectors.forEach((r, i) => {
        const v = vectors[i] as Float32Array;
        assert.ok(cosine(v, Float32Array.from(r.embedding)) > 0.99999, r.text.slice(0, 30));
        assert.ok(
          maxAbsDiff(v, r.embedding) < 1e-5,
          `${r.text.slice(0, 30)}: ${maxAbsDiff(v, r.embedding)}`,
        );
      });
      assert.equal(reference.vectors.at(-1)?.tokens, 256);
      // The model card's example sentence: all-MiniLM-L6-v2 starts it 0.0439, 0.0589, 0.0482.
      assert.deepEqual(
        Array.from((vectors[0] as Float32Array).subarray(0, 3), (x) => x.toFixed(4)),
        ['0.0439', '0.0589', '0.0482'],
      );
    });

    it('truncates at 256 tokens: words past them change nothing, words before them do', async function () {
      const long = reference.vectors.at(-1)?.text as string;
      const [a, b, c, d] = await embedder.embed([
        long,
        `${long} and then something entirely different about volcanoes`,
        'A short sentence.',
        'A short sentence about volcanoes.',
      ]);
      assert.ok(maxAbsDiff(a as Float32Array, b as Float32Array) < 1e-6);
      assert.ok(maxAbsDiff(c as Float32Array, d as Float32Array) > 1e-2);
    });

    it('scores paraphrases high and unrelated sentences low', async function () {
      const [cat, cat2, stocks, pod, pod2] = await embedder.embed([
        'A cat is sleeping on the sofa.',
        'A kitten naps on the couch.',
        'The stock market fell sharply on Monday.',
        'How do I restart a crashed pod in Kubernetes?',
        'Restarting a failed Kubernetes pod',
      ]);
      const close1 = cosine(cat as Float32Array, cat2 as Float32Array);
      const close2 = cosine(pod as Float32Array, pod2 as Float32Array);
      const far1 = cosine(cat as Float32Array, stocks as Float32Array);
      const far2 = cosine(cat as Float32Array, pod as Float32Array);
      assert.ok(close1 > 0.6 && close2 > 0.6, `paraphrases ${close1}, ${close2}`);
      assert.ok(far1 < 0.2 && far2 < 0.2, `unrelated ${far1}, ${far2}`);
    });

    it('ranks the passage that answers a question first', async function () {
      const questions: [string, number][] = [
        ['When was the Eiffel Tower built?', 0],
        ['How do plants make sugar from sunlight?', 1],
        ['What happens to my pods when a node goes down?', 2],
        ['Why does sourdough rise without commercial yeast?', 3],
        ['Which organelle makes ATP?', 4],
      ];
      const passages = await embedder.embed(PASSAGES);
      const queries = await embedder.embed(questions.map(([q]) => q));
      questions.forEach(([q, want], i) => {
        const scores = passages.map((p) => cosine(queries[i] as Float32Array, p));
        const best = scores.indexOf(Math.max(...scores));
        assert.equal(best, want, `${q} → passage ${best}`);
      });
    });

    it('answers a search query before a long ingestion sent earlier has finished', async function () {
      const finished: string[] = [];
      const ingestion = embedder
        .embed(Array.from({ length: 48 }, (_, i) => `${PASSAGES[i % 5]} (copy ${i})`))
        .then(() => finished.push('ingestion'));
      const query = embedder
        .embed(['Which organelle makes ATP?'])
        .then(() => finished.push('query'));
      await Promise.all([ingestion, query]);
      assert.deepEqual(finished, ['query', 'ingestion']);
    });

    it('fails an aborted call with the signal’s reason and goes on serving the others', async function () {
      const ac = new AbortController();
      const aborted = embedder.embed(PASSAGES.concat(PASSAGES, PASSAGES), ac.signal);
      const other = embedder.embed(['still served']);
      ac.abort(new Error('the client went away'));
      await assert.rejects(aborted, /the client went away/);
      assert.equal((await other).length, 1);
      const pre = new AbortController();
      pre.abort(new Error('already gone'));
      await assert.rejects(embedder.embed(['x'], pre.signal), /already gone/);
    });

    it('refuses to start without the model, as 503 model_backend_unavailable', async function () {
      const err = await LocalEmbedder.start({ modelDir: '/nonexistent/model' }).then(
        () => assert.fail('started'),
        (e: unknown) => e,
      );
      const mapped = apiErrorOf(err);
      assert.equal(mapped.status, 503);
      assert.equal(mapped.code, 'model_backend_unavailable');
      assert.match(mapped.message, /could not be loaded/);
    });

    it('fails pending calls when closed, and refuses calls after', async function () {
      const own = await LocalEmbedder.start({ modelDir: miniLmDir(), batchSize: 1 });
      const pending = own.embed(PASSAGES).then(
        () => assert.fail('answered'),
        (e: unknown) => e,
      );
      await own.close();
      assert.match(String(await pending), /closed/);
      await assert.rejects(own.embed(['x']), /closed/);
    });
  });

  describe('the OpenAI-compatible /v1/embeddings client against a server of the local model', function () {
    let backend: EmbeddingsTestBackend;
    const client = (opts: { apiKey?: string; dimensions?: number; batchSize?: number } = {}) =>
      new OpenAiEmbedder({
        baseUrl: backend.baseUrl,
        model: 'minilm-served',
        apiKey: opts.apiKey ?? 'sk-test-embeddings',
        http,
        retryBaseMs: 1,
        dimensions: opts.dimensions ?? 384,
        batchSize: opts.batchSize ?? 2,
      });

    before(async function () {
      backend = await startEmbeddingsTestBackend({
        embedder,
        reranker: new LocalReranker(embedder),
        apiKey: 'sk-test-embeddings',
      });
    });
    after(async function () {
      await backend?.close();
    });

    it('answers the local model’s vectors exactly, placed by index, in requests of batchSize texts', async function () {
      const before = backend.requests.length;
      const remote = await client().embed(PASSAGES);
      const local = await embedder.embed(PASSAGES);
      assert.deepEqual(remote, local);
      const sent = backend.requests.slice(before);
      assert.equal(sent.length, 3);
      assert.deepEqual(sent[0]?.body, {
        model: 'minilm-served',
        input: PASSAGES.slice(0, 2),
        encoding_format: 'float',
      });
      assert.equal(sent[0]?.path, '/v1/embeddings');
      assert.equal(sent[0]?.headers.authorization, 'Bearer sk-test-embeddings');
    });

    it('retries a 503 and answers the vectors', async function () {
      backend.failNext(2, 503);
      const before = backend.requests.length;
      const [v] = await client().embed(['retried']);
      assert.equal(v?.length, 384);
      assert.equal(backend.requests.length - before, 3);
    });

    it('answers 503 model_backend_unavailable after three retries', async function () {
      backend.failNext(4, 503);
      const before = backend.requests.length;
      const err = await client()
        .embed(['x'])
        .catch((e: unknown) => e);
      const mapped = apiErrorOf(err);
      assert.equal(mapped.status, 503);
      assert.equal(mapped.code, 'model_backend_unavailable');
      assert.equal(backend.requests.length - before, 4);
    });

    it('answers 502 model_backend_error for a refused key, once, without echoing the key', async function () {
      const before = backend.requests.length;
      const err = await client({ apiKey: 'sk-wrong-key' })
        .embed(['x'])
        .catch((e: unknown) => e);
      const mapped = apiErrorOf(err);
      assert.equal(mapped.status, 502);
      assert.equal(mapped.code, 'model_backend_error');
      assert.doesNotMatch(mapped.message, /sk-wrong-key/);
      assert.equal(backend.requests.length - before, 1);
    });

    it('answers 502 model_backend_error when the backend’s vectors are not the collection’s length', async function () {
      const err = await client({ dimensions: 768 })
        .embed(['x'])
        .catch((e: unknown) => e);
      const mapped = apiErrorOf(err);
      assert.equal(mapped.code, 'model_backend_error');
      assert.match(mapped.message, /not 768 finite numbers/);
      backend.answerNext({ data: [{ index: 0, embedding: [0.1, 0.2] }] });
      const short = await client()
        .embed(['x'])
        .catch((e: unknown) => e);
      assert.equal(apiErrorOf(short).code, 'model_backend_error');
    });
  });

  describe('the reranker: the local bi-encoder fallback and the /rerank client', function () {
    let backend: EmbeddingsTestBackend;
    let local: LocalReranker;
    const remote = () =>
      new RemoteReranker({
        baseUrl: backend.baseUrl,
        model: 'rerank-served',
        http,
        retryBaseMs: 1,
      });

    before(async function () {
      local = new LocalReranker(embedder);
      backend = await startEmbeddingsTestBackend({ embedder, reranker: local });
    });
    after(async function () {
      await backend?.close();
    });

    it('puts the passage that answers the query first and answers at most top_n', async function () {
      const results = await local.rerank({
        query: 'Which organelle makes ATP?',
        documents: PASSAGES,
        topN: 2,
      });
      assert.equal(results.length, 2);
      assert.equal(results[0]?.index, 4);
      assert.ok((results[0]?.relevanceScore ?? 0) > (results[1]?.relevanceScore ?? 1));
      const all = await local.rerank({ query: 'bread baking', documents: PASSAGES, topN: 50 });
      assert.equal(all.length, PASSAGES.length);
      assert.equal(all[0]?.index, 3);
    });

    it('answers through the common /rerank shape what the local reranker answers', async function () {
      const before = backend.requests.length;
      const req = { query: 'What keeps my replicas running?', documents: PASSAGES, topN: 3 };
      const got = await remote().rerank(req);
      assert.deepEqual(got, await local.rerank(req));
      assert.equal(got[0]?.index, 2);
      const [sent] = backend.requests.slice(before);
      assert.equal(sent?.path, '/v1/rerank');
      assert.deepEqual(sent?.body, {
        model: 'rerank-served',
        query: req.query,
        documents: PASSAGES,
        top_n: 3,
        return_documents: false,
      });
    });

    const bad: [string, unknown][] = [
      ['an empty query', { query: '', documents: PASSAGES }],
      ['a blank query', { query: '   ', documents: PASSAGES }],
      ['an empty document list', { query: 'q', documents: [] }],
      ['a document that is not a string', { query: 'q', documents: ['a', 42] }],
      ['no document list', { query: 'q' }],
    ];
    for (const [what, req] of bad) {
      it(`answers 400 rerank_bad_request for ${what}, locally and without calling a backend`, async function () {
        const before = backend.requests.length;
        for (const reranker of [local, remote()]) {
          const err = await reranker
            .rerank(req as Parameters<LocalReranker['rerank']>[0])
            .catch((e: unknown) => e);
          assert.ok(err instanceof RerankBadRequest, String(err));
          const mapped = apiErrorOf(err, 'rerank');
          assert.equal(mapped.status, 400);
          assert.equal(mapped.code, 'rerank_bad_request');
        }
        assert.equal(backend.requests.length, before);
      });
    }

    it('answers 400 rerank_bad_request when the backend itself refuses the request as bad', async function () {
      backend.failNext(1, 400);
      const err = await remote()
        .rerank({ query: 'q', documents: ['d'] })
        .catch((e: unknown) => e);
      const mapped = apiErrorOf(err, 'rerank');
      assert.equal(mapped.code, 'rerank_bad_request');
      assert.match(mapped.message, /injected failure 400/);
    });
  });

  describe('extraction and chunking feed the model', function () {
    it('keeps default chunks (800 characters) of English prose within the model’s 256 tokens', async function () {
      const encoder = await MiniLmEncoder.load({ modelDir: miniLmDir(), threads: 1 });
      try {
        const text = Array.from({ length: 12 }, (_, i) =>
          PASSAGES.concat(PASSAGES[i % 5] as string).join(' '),
        ).join('\n\n');
        const chunks = chunkText(text, { size: 800, overlap: 100, maxChunks: 1000 });
        assert.ok(chunks.length > 10);
        const tokens = chunks.map((c) => encoder.countTokens(c.text));
        assert.ok(
          Math.max(...tokens) <= MINILM_MAX_TOKENS - 2,
          `largest chunk: ${Math.max(...tokens)} tokens`,
        );
      } finally {
        await encoder.close();
      }
    });

    it('finds the chunk of an HTML page that answers a question', async function () {
      const html = `<html><head><style>body{}</style><script>var x = 'mitochondria';</script></head><body>
        ${PASSAGES.map((p, i) => `<section><h2>Part ${i + 1}</h2><p>${p}</p></section>`).join('\n')}
        </body></html>`;
      const { text } = await extractText(
        { name: 'notes.html', contentType: 'text/html', bytes: new TextEncoder().encode(html) },
        { maxBytes: 1 << 20 },
      );
      const chunks = chunkText(text, { size: 300, overlap: 40, maxChunks: 100 });
      assert.ok(chunks.length >= PASSAGES.length);
      const vectors = await embedder.embed(chunks.map((c) => c.text));
      const [q] = await embedder.embed(['What does a Deployment do when a node fails?']);
      const scores = vectors.map((v) => cosine(q as Float32Array, v));
      const best = chunks[scores.indexOf(Math.max(...scores))];
      assert.match(best?.text ?? '', /replacement pods/);
      assert.doesNotMatch(text, /var x/);
    });
  });
});
