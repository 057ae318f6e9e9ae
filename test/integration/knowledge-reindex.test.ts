import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder, LocalReranker } from '@aiplane/api';
import {
  miniLmDir,
  startEmbeddingsTestBackend,
  waitFor,
  type EmbeddingsTestBackend,
} from '@aiplane/hack';
import {
  assertCode,
  assertValidationFailed,
  keycloak,
  ORG_SCOPE,
  queryRows,
  startTestApi,
  type TestApi,
  tokenFor,
} from './api-helpers.js';
import {
  acting,
  type Acting,
  type FileNode,
  fileWithStatus,
  shareWith,
  unique,
} from './files-helpers.js';
import { setPermissionsIn } from './keycloak-admin.js';

const NAME = 'knowledge-reindex';
const CORPUS = join(import.meta.dirname, 'fixtures', 'knowledge');
const API_KEY = 'sk-reindex-embeddings';
/** Requests embedding a text of the coast guide are the ones a test holds at the backend. */
const HELD = (text: string) => text.includes('Gull Point');

interface Progress {
  id: string;
  collection: string;
  state: 'running' | 'cancelled' | 'finished' | 'failed';
  trigger: string;
  source_model: string | null;
  embedding_model: string;
  dimensions: number;
  total: number;
  completed: number;
  failed: number;
  skipped: number;
  reason: string | null;
  started_at: string;
  finished_at: string | null;
}
interface Answer {
  embedding_model: string;
  results: { document_id: string; text: string }[];
}

/**
 * Reindexing the organization's collection with another embedding model (issue 18; ADR 0034),
 * on the real stack: files indexed by the local all-MiniLM-L6-v2, then by catalogue models
 * served by a real OpenAI-compatible `/v1/embeddings` server (the same model at 384
 * dimensions, and its vectors shortened to 256 as OpenAI shortens text-embedding-3's). The
 * backend holds the coast guide's requests where a test needs the reindex to be running.
 */
describe('reindex: a new embedding model built file by file, progress, atomic switch, cancel, 409, resume after a restart', function () {
  this.timeout(600_000);
  let api: TestApi;
  let store: string;
  let embedder: LocalEmbedder;
  let backend: EmbeddingsTestBackend;
  let owner: Acting;
  let admin: Acting;
  let other: Acting;
  const acme = () => keycloak().organization.id;
  const files = new Map<string, FileNode>();

  const start = async (databaseOf?: string) => {
    // A restarted API logs to a file of its own (`…-restarted.log`), on the same database.
    api = await startTestApi(
      databaseOf ? `${NAME}-restarted` : NAME,
      {
        AIPLANE_FILES_DIR: store,
        AIPLANE_IDP_ACCESS_CACHE_SECONDS: '0',
        AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
        AIPLANE_FILES_PROCESSING_ATTEMPTS: '2',
      },
      {
        ...(databaseOf ? { databaseOf } : {}),
        files: { queue: { pollMs: 200, heartbeatMs: 200, leaseMs: 2000, backoffBaseMs: 200 } },
      },
    );
    owner = acting(api.url, 'member', acme());
    admin = acting(api.url, 'admin', acme());
    other = acting(api.url, 'outsider', acme());
  };
  const progress = async (): Promise<Progress> => {
    const r = await admin.call('GET', '/v1/collections/documents/reindex');
    assert.equal(r.status, 200, r.text);
    return r.json() as Progress;
  };
  const ended = async (): Promise<Progress> => {
    let last: Progress | undefined;
    await waitFor(
      'the reindex to end',
      async () => {
        last = await progress();
        return last.state !== 'running';
      },
      { timeoutMs: 300_000, intervalMs: 500 },
    );
    return last!;
  };
  const search = async (who: Acting, query: string): Promise<Answer> => {
    const r = await who.call('POST', '/v1/collections/documents/search', { query });
    assert.equal(r.status, 200, r.text);
    return r.json() as Answer;
  };
  /** The lighthouse question finds the coast guide, searched in `model`'s collection. */
  const answersFromCoastGuide = async (model: string) => {
    const answer = await search(owner, 'How many steps does the lighthouse have?');
    assert.equal(answer.embedding_model, model);
    assert.equal(answer.results[0]?.document_id, files.get('coast-guide.md')!.id);
  };
  const setModel = (model: string | null) =>
    admin.call('PATCH', '/v1/config', { embedding_model: model });
  const generations = () =>
    queryRows<{ embedding_model: string; state: string; dimensions: number; chunk_table: string }>(
      api.databaseUrl,
      'select embedding_model, state, dimensions, chunk_table from knowledge_collections order by created_at',
    );
  const tableExists = async (table: string) =>
    (
      await queryRows<{ t: string | null }>(api.databaseUrl, 'select to_regclass($1)::text as t', [
        table,
      ])
    )[0]?.t !== null;
  const upload = async (name: string, data: string | Uint8Array, type = 'text/markdown') => {
    const r = await owner.upload({
      folder_id: 'null',
      file: {
        data,
        filename: unique(name.replace(/\.\w+$/, '')) + name.slice(name.lastIndexOf('.')),
        type,
      },
    });
    assert.equal(r.status, 201, r.text);
    const f = r.json() as FileNode;
    files.set(name, f);
    return f;
  };
  const corpus = (name: string) => readFileSync(join(CORPUS, name));

  before(async function () {
    store = await mkdtemp(join(tmpdir(), 'aiplane-knowledge-reindex-'));
    await setPermissionsIn(acme(), keycloak().users.outsider.id, ['can_access_api']);
    embedder = await LocalEmbedder.start({ modelDir: miniLmDir(), batchSize: 8 });
    backend = await startEmbeddingsTestBackend({
      embedder,
      reranker: new LocalReranker(embedder),
      apiKey: API_KEY,
      shortened: { 'minilm-256': 256 },
    });
    await start();
    for (const [name, backendModel, mode] of [
      ['remote-minilm', 'minilm', 'embedding'],
      ['remote-minilm-256', 'minilm-256', 'embedding'],
      ['chatty', 'chatty', 'chat'],
    ] as const) {
      const r = await admin.call('POST', '/v1/models', {
        name,
        mode,
        base_url: backend.baseUrl,
        backend_model: backendModel,
        api_key: API_KEY,
      });
      assert.equal(r.status, 201, r.text);
    }
  });

  after(async function () {
    backend?.release();
    await api?.close();
    await backend?.close();
    await embedder?.close();
    await setPermissionsIn(acme(), keycloak().users.outsider.id, []);
    await rm(store, { recursive: true, force: true });
  });

  it('keeps the embedding model in /v1/config: null (the local model) by default; a name that is no active catalogue model of mode embedding is 422 naming embedding_model, and only can_edit_config changes it', async function () {
    const r = await admin.call('GET', '/v1/config');
    assert.equal(r.status, 200, r.text);
    assert.equal((r.json() as { embedding_model: unknown }).embedding_model, null);
    assertValidationFailed(await setModel('no-such-model'), 'embedding_model');
    assertValidationFailed(await setModel('chatty'), 'embedding_model');
    assertCode(
      await owner.call('PATCH', '/v1/config', { embedding_model: 'remote-minilm' }),
      403,
      'permission_denied',
    );
    const after = await admin.call('GET', '/v1/config');
    assert.equal((after.json() as { embedding_model: unknown }).embedding_model, null);
  });

  it('indexes with the local model until then; no reindex yet (404 reindex_not_found)', async function () {
    for (const name of ['home-baker.md', 'coast-guide.md', 'observatory.md'])
      await upload(name, corpus(name));
    // Binary: its own processing fails, so a reindex skips it.
    await upload('broken.txt', new Uint8Array([0x61, 0, 0x62, 0, 0x63]), 'text/plain');
    // Its bytes go missing from the blob store before the reindex: that file fails.
    await upload(
      'vanishing.md',
      '# Vanishing\n\nA note about the tides at the harbour of Sandwick.',
    );
    for (const name of ['home-baker.md', 'coast-guide.md', 'observatory.md', 'vanishing.md'])
      await fileWithStatus(owner, files.get(name)!.id, 'RAG Available');
    await fileWithStatus(owner, files.get('broken.txt')!.id, 'failed');
    const answer = await search(owner, 'How often should a sourdough starter be fed?');
    assert.equal(answer.embedding_model, 'all-MiniLM-L6-v2');
    assert.equal(answer.results[0]?.document_id, files.get('home-baker.md')!.id);
    assertCode(
      await admin.call('GET', '/v1/collections/documents/reindex'),
      404,
      'reindex_not_found',
    );
    assertCode(
      await admin.call('GET', '/v1/collections/nothing/reindex'),
      404,
      'collection_not_found',
    );
    assertCode(
      await owner.call('POST', '/v1/collections/documents/reindex'),
      403,
      'permission_denied',
    );
  });

  it('a change of embedding_model reindexes into a target: search stays on the old collection, uploads land in both, a second reindex is 409, counters add up, then search switches at once and the old collection is dropped', async function () {
    const [{ blob_key: blob } = { blob_key: '' }] = await queryRows<{ blob_key: string }>(
      api.databaseUrl,
      'select blob_key from knowledge_nodes where id = $1',
      [files.get('vanishing.md')!.id],
    );
    await rm(join(store, 'blobs', blob.slice(0, 2), blob));
    backend.hold(HELD);
    const changed = await setModel('remote-minilm');
    assert.equal(changed.status, 200, changed.text);
    assert.equal((changed.json() as { embedding_model: string }).embedding_model, 'remote-minilm');

    const running = await progress();
    assert.deepEqual(
      pick(running, 'state', 'trigger', 'source_model', 'embedding_model', 'dimensions', 'total'),
      {
        state: 'running',
        trigger: 'config',
        source_model: 'all-MiniLM-L6-v2',
        embedding_model: 'remote-minilm',
        dimensions: 384,
        total: 5,
      },
    );
    const [old, target] = await generations();
    assert.deepEqual([old?.state, target?.state], ['active', 'building']);
    // The portal's stream: progress events until the end.
    const events = fetchEvents(api.url);

    await waitFor('the coast guide’s job to wait at the backend', () =>
      Promise.resolve(backend.waiting > 0),
    );
    // One at a time per organization.
    assertCode(
      await admin.call('POST', '/v1/collections/documents/reindex'),
      409,
      'reindex_running',
    );
    assertCode(await setModel('remote-minilm-256'), 409, 'reindex_running');
    assert.equal(
      ((await admin.call('GET', '/v1/config')).json() as { embedding_model: string })
        .embedding_model,
      'remote-minilm',
    );

    // Uploaded during the reindex: in the old collection (searched) and in the target.
    const bees = await upload('bees-and-garden.md', corpus('bees-and-garden.md'));
    await fileWithStatus(owner, bees.id, 'RAG Available');
    const [{ n } = { n: 0 }] = await queryRows<{ n: number }>(
      api.databaseUrl,
      `select count(*)::int as n from ${target!.chunk_table} where file_id = $1`,
      [bees.id],
    );
    assert.ok(n >= 3, `${n} chunks of the new upload in the target`);
    const during = await search(owner, 'Why do honey bees dance?');
    assert.equal(during.embedding_model, 'all-MiniLM-L6-v2');
    assert.equal(during.results[0]?.document_id, bees.id);
    const mid = await progress();
    assert.equal(mid.state, 'running');
    assert.ok(mid.completed + mid.failed + mid.skipped < mid.total, JSON.stringify(mid));

    backend.release();
    const done = await ended();
    assert.deepEqual(pick(done, 'state', 'total', 'completed', 'failed', 'skipped'), {
      state: 'finished',
      total: 5,
      completed: 3,
      failed: 1,
      skipped: 1,
    });
    assert.ok(done.finished_at);

    await answersFromCoastGuide('remote-minilm');
    assert.equal(
      (await search(owner, 'Why do honey bees dance?')).results[0]?.document_id,
      bees.id,
    );
    const now = await generations();
    assert.deepEqual(
      now.map((g) => [g.embedding_model, g.state]),
      [['remote-minilm', 'active']],
    );
    assert.equal(await tableExists(old!.chunk_table), false);
    const vanished = await fileWithStatus(owner, files.get('vanishing.md')!.id, 'failed');
    assert.match(vanished.status_reason ?? '', /not indexed with remote-minilm: .*missing/);

    const seen = await events;
    assert.equal(seen.at(-1)?.event, 'end');
    assert.equal(seen.at(-1)?.data.state, 'finished');
    assert.ok(seen.some((e) => e.event === 'progress' && e.data.state === 'running'));
    for (const e of seen) {
      const c = e.data;
      assert.ok(c.completed + c.failed + c.skipped <= c.total, JSON.stringify(c));
    }
  });

  it('keeps the access rules after the switch: another member sees no unshared chunk, a share grants it, its removal revokes it', async function () {
    const baker = files.get('home-baker.md')!;
    const query = 'How often should a sourdough starter be fed?';
    const mine = new Set(Array.from(files.values(), (f) => f.id));
    assert.ok(!(await search(other, query)).results.some((h) => mine.has(h.document_id)));
    const shared = await shareWith(
      owner,
      `/v1/files/${baker.id}`,
      'user',
      keycloak().users.outsider.id,
      'viewer',
    );
    assert.ok(shared.status === 200 || shared.status === 201, shared.text);
    const seen = await search(other, query);
    assert.equal(seen.embedding_model, 'remote-minilm');
    assert.deepEqual([...new Set(seen.results.map((h) => h.document_id))], [baker.id]);
    const removed = await owner.call(
      'DELETE',
      `/v1/files/${baker.id}/shares/user/${keycloak().users.outsider.id}`,
    );
    assert.ok(removed.status === 204 || removed.status === 200, removed.text);
    assert.ok(!(await search(other, query)).results.some((h) => mine.has(h.document_id)));
  });

  it('cancels a running reindex at any time (can_edit_config): the target is dropped, the old collection stays in use and /v1/config names its model again', async function () {
    backend.hold(HELD);
    assert.equal((await setModel('remote-minilm-256')).status, 200);
    const running = await progress();
    assert.deepEqual(
      [running.state, running.embedding_model, running.dimensions, running.total],
      ['running', 'remote-minilm-256', 256, 6],
    );
    const target = (await generations()).find((g) => g.state === 'building')!;
    assert.equal(target.dimensions, 256);
    await waitFor('a job to wait at the backend', () => Promise.resolve(backend.waiting > 0));

    assertCode(
      await owner.call('DELETE', '/v1/collections/documents/reindex'),
      403,
      'permission_denied',
    );
    const r = await admin.call('DELETE', '/v1/collections/documents/reindex');
    assert.equal(r.status, 200, r.text);
    const cancelled = r.json() as Progress;
    assert.equal(cancelled.state, 'cancelled');
    assert.equal(cancelled.completed + cancelled.failed + cancelled.skipped, cancelled.total);
    assert.deepEqual((await progress()).state, 'cancelled');
    assert.equal(await tableExists(target.chunk_table), false);
    assert.deepEqual(
      (await generations()).map((g) => [g.embedding_model, g.state]),
      [['remote-minilm', 'active']],
    );
    assert.equal(
      ((await admin.call('GET', '/v1/config')).json() as { embedding_model: string })
        .embedding_model,
      'remote-minilm',
    );
    await answersFromCoastGuide('remote-minilm');
    assertCode(
      await admin.call('DELETE', '/v1/collections/documents/reindex'),
      404,
      'reindex_not_found',
    );
    backend.release();
  });

  it('a catalogue change of the model at its backend (another dimension) reindexes; stopped mid-way, the API resumes it after a restart and switches', async function () {
    backend.hold(HELD);
    const listed = (await admin.call('GET', '/v1/models')).json() as {
      models: { id: string; name: string }[];
    };
    const entry = listed.models.find((m) => m.name === 'remote-minilm');
    assert.ok(entry);
    const changed = await admin.call('PATCH', `/v1/models/${entry.id}`, {
      backend_model: 'minilm-256',
    });
    assert.equal(changed.status, 200, changed.text);
    const running = await progress();
    assert.deepEqual(
      [running.state, running.trigger, running.embedding_model, running.dimensions, running.total],
      ['running', 'catalogue', 'remote-minilm', 256, 6],
    );
    await waitFor('a job to wait at the backend', () => Promise.resolve(backend.waiting > 0));

    await api.close();
    const left = await queryRows<{ state: string }>(
      api.databaseUrl,
      'select state from knowledge_reindexes where id = $1',
      [running.id],
    );
    assert.deepEqual(left, [{ state: 'running' }]);
    const pending = await queryRows<{ n: number }>(
      api.databaseUrl,
      "select count(*)::int as n from knowledge_jobs where reindex_id = $1 and status = 'queued'",
      [running.id],
    );
    assert.ok((pending[0]?.n ?? 0) >= 1, 'jobs left for the next start');
    backend.release();

    await start(NAME);
    const done = await ended();
    assert.equal(done.id, running.id);
    assert.equal(done.state, 'finished');
    assert.equal(done.completed + done.failed + done.skipped, done.total);
    assert.deepEqual([done.total, done.completed, done.skipped], [6, 4, 2]);
    assert.deepEqual(
      (await generations()).map((g) => [g.embedding_model, g.state, g.dimensions]),
      [['remote-minilm', 'active', 256]],
    );
    await answersFromCoastGuide('remote-minilm');
  });

  it('switches a reindex whose last file was deleted while it was being indexed (its job gone with it)', async function () {
    backend.hold(HELD);
    assert.equal((await setModel('remote-minilm-256')).status, 200);
    const running = await progress();
    assert.equal(running.state, 'running');
    await waitFor('a job to wait at the backend', () => Promise.resolve(backend.waiting > 0));
    const coast = files.get('coast-guide.md')!;
    const del = await owner.call('DELETE', `/v1/files/${coast.id}`);
    assert.equal(del.status, 204, del.text);
    backend.release();
    // Its job went with its file. (A reindex whose last queued jobs all went that way, with
    // no job left to end, is switched by the API's watchdog within REINDEX_WATCHDOG_MS.)
    const done = await ended();
    assert.equal(done.id, running.id);
    assert.equal(done.state, 'finished');
    assert.deepEqual(
      (await generations()).map((g) => [g.embedding_model, g.state]),
      [['remote-minilm-256', 'active']],
    );
    const answer = await search(owner, 'How many steps does the lighthouse have?');
    assert.equal(answer.embedding_model, 'remote-minilm-256');
    assert.ok(answer.results.every((h) => h.document_id !== coast.id));
  });
});

/** Some fields of a progress record. */
function pick<K extends keyof Progress>(p: Progress, ...keys: K[]): Pick<Progress, K> {
  return Object.fromEntries(keys.map((k) => [k, p[k]])) as Pick<Progress, K>;
}

interface SseEvent {
  event: string;
  data: Progress;
}

/** Reads `/v1/collections/documents/reindex/events` to its end (bounded by the stream's own end). */
async function fetchEvents(url: string): Promise<SseEvent[]> {
  const token = await tokenFor('admin', ORG_SCOPE);
  const res = await fetch(`${url}/v1/collections/documents/reindex/events`, {
    headers: {
      authorization: `Bearer ${token}`,
      'x-aiplane-organization': keycloak().organization.id,
    },
    signal: AbortSignal.timeout(300_000),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('event: '))
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as Progress;
      return { event, data };
    });
}
