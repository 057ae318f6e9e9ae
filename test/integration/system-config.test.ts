import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ManagedProcess } from '@aiplane/hack';
import {
  assertCode,
  assertValidationFailed,
  call,
  ORG_SCOPE,
  queryRows,
  startTestApi,
  tokenFor,
  type DevUser,
  type Reply,
  type TestApi,
} from './api-helpers.js';
import {
  addMembers,
  caller,
  createAgent,
  provisionTenants,
  removeMembers,
  type Tenant,
} from './fixtures/index.js';
import { startOperatorProcess } from './operator-process.js';

interface Config {
  retrieval_k: number;
  rerank_top_n: number | null;
  reranker_enabled: boolean;
  reranker_model: string | null;
  embedding_model: string | null;
  service_desk: { enabled: boolean; custom_gpt_id: string | null; document_ids: string[] | null };
}

const DEFAULTS: Config = {
  retrieval_k: 3,
  rerank_top_n: null,
  reranker_enabled: false,
  reranker_model: null,
  embedding_model: null,
  service_desk: { enabled: false, custom_gpt_id: null, document_ids: null },
};

describe('system configuration: GET and PATCH /v1/config per organization', function () {
  let api: TestApi;
  let operator: ManagedProcess | undefined;
  let a: Tenant;
  let b: Tenant;
  let agentOfA: string;
  let agentOfB: string;
  const reranker = `rerank-${randomUUID().slice(0, 8)}`;
  const chatModel = `chat-${randomUUID().slice(0, 8)}`;

  /** A call acting in the organization, with extra headers (If-Match, If-None-Match). */
  const as =
    (user: DevUser, organizationId: () => string) =>
    async (method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
      call(`${api.url}/v1/config`, {
        method,
        body,
        headers: {
          authorization: `Bearer ${await tokenFor(user, ORG_SCOPE)}`,
          'x-aiplane-organization': organizationId(),
          ...headers,
        },
      });
  const admin = as('admin', () => a.organizationId);
  const member = as('member', () => a.organizationId);
  const config = (r: Reply) => r.json() as Config;
  const current = async () => {
    const r = await admin('GET');
    return { config: config(r), etag: r.headers.get('etag') ?? '' };
  };

  before(async function () {
    this.timeout(240_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    api = await startTestApi('api-config');
    [a, b] = await provisionTenants(api.url, 'cfg-a', 'cfg-b');
    await addMembers(a.organizationId);
    await addMembers(b.organizationId, ['admin']);
    agentOfA = (await createAgent(caller(api.url, 'member', a.organizationId), 'desk')).id;
    agentOfB = (await createAgent(caller(api.url, 'admin', b.organizationId), 'other')).id;
    // The model catalogue has no routes yet (issue 17): its rows are written as they will be.
    await queryRows(
      api.databaseUrl,
      "insert into model_catalogue (name, mode) values ($1, 'rerank'), ($2, 'chat')",
      [reranker, chatModel],
    );
  });

  after(async function () {
    if (a) await removeMembers(a.organizationId);
    if (b) await removeMembers(b.organizationId, ['admin']);
    await operator?.stop();
    await api?.close();
  });

  it('answers the defaults with an ETag, and 304 to If-None-Match with it', async function () {
    const r = await member('GET');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(config(r), DEFAULTS);
    const etag = r.headers.get('etag') ?? '';
    assert.match(etag, /^"config-v\d+"$/);
    assert.equal((await member('GET', undefined, { 'if-none-match': etag })).status, 304);
  });

  it('applies a partial update, keeps what it omits, and moves the ETag', async function () {
    const before = await current();
    const r = await admin('PATCH', { retrieval_k: 10 });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(config(r), { ...before.config, retrieval_k: 10 });
    assert.notEqual(r.headers.get('etag'), before.etag);
    assert.deepEqual((await current()).config, { ...before.config, retrieval_k: 10 });
    assert.deepEqual((await admin('PATCH', { retrieval_k: 3 })).json(), before.config);
  });

  it('keeps each organization’s configuration apart', async function () {
    await admin('PATCH', { retrieval_k: 7 });
    const inB = as('admin', () => b.organizationId);
    assert.equal(config(await inB('GET')).retrieval_k, 3);
    await admin('PATCH', { retrieval_k: 3 });
  });

  it('bounds retrieval_k and rerank_top_n to 1–50 integers, and refuses unknown fields', async function () {
    for (const k of [0, 51, 3.5, '3', null]) {
      assertValidationFailed(await admin('PATCH', { retrieval_k: k }), 'retrieval_k');
    }
    for (const n of [0, 51, 2.5]) {
      assertValidationFailed(await admin('PATCH', { rerank_top_n: n }), 'rerank_top_n');
    }
    assertValidationFailed(await admin('PATCH', { bogus: 1 }), 'bogus');
    assertValidationFailed(
      await admin('PATCH', { service_desk: { bogus: 1 } }),
      'service_desk.bogus',
    );
  });

  it('names document_ids when collection_name (replaced in 1.2.0) is sent', async function () {
    for (const body of [
      { service_desk: { collection_name: 'kb' } },
      { collection_name: 'kb', retrieval_k: 4 },
    ]) {
      const r = await admin('PATCH', body);
      assertValidationFailed(r, 'service_desk.document_ids');
      assert.match(r.text, /replaced by document_ids/);
    }
  });

  it('lets the reranker and rerank_top_n be set only after a reranker model is selected', async function () {
    assertValidationFailed(await admin('PATCH', { rerank_top_n: 5 }), 'rerank_top_n');
    assertValidationFailed(await admin('PATCH', { reranker_enabled: true }), 'reranker_enabled');
    assertValidationFailed(await admin('PATCH', { reranker_model: chatModel }), 'reranker_model');
    assertValidationFailed(
      await admin('PATCH', { reranker_model: 'no-such-model' }),
      'reranker_model',
    );
    const r = await admin('PATCH', {
      reranker_model: reranker,
      reranker_enabled: true,
      rerank_top_n: 5,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      { ...config(r), service_desk: undefined },
      {
        ...DEFAULTS,
        reranker_model: reranker,
        reranker_enabled: true,
        rerank_top_n: 5,
        service_desk: undefined,
      },
    );
    // Unselecting the model while the reranker uses it breaks both rules: refused whole.
    const before = await current();
    const refused = await admin('PATCH', { reranker_model: null, retrieval_k: 9 });
    assertValidationFailed(refused, 'reranker_enabled');
    assertValidationFailed(refused, 'rerank_top_n');
    assert.deepEqual(await current(), before, 'nothing of a refused update is stored');
    const off = await admin('PATCH', {
      reranker_model: null,
      reranker_enabled: false,
      rerank_top_n: null,
    });
    assert.equal(off.status, 200, off.text);
  });

  it('lets the service desk be enabled only after a Custom GPT of the organization is selected', async function () {
    assertValidationFailed(
      await admin('PATCH', { service_desk: { enabled: true } }),
      'service_desk.enabled',
    );
    for (const id of [randomUUID(), agentOfB]) {
      assertValidationFailed(
        await admin('PATCH', { service_desk: { custom_gpt_id: id } }),
        'service_desk.custom_gpt_id',
      );
    }
    assertValidationFailed(
      await admin('PATCH', { service_desk: { custom_gpt_id: 'not-a-uuid' } }),
      'service_desk.custom_gpt_id',
    );
    const r = await admin('PATCH', {
      service_desk: { custom_gpt_id: agentOfA, enabled: true, document_ids: ['doc-1', 'doc-2'] },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(config(r).service_desk, {
      enabled: true,
      custom_gpt_id: agentOfA,
      document_ids: ['doc-1', 'doc-2'],
    });
    // A partial service_desk keeps its other fields.
    const partial = await admin('PATCH', { service_desk: { document_ids: null } });
    assert.deepEqual(config(partial).service_desk, {
      enabled: true,
      custom_gpt_id: agentOfA,
      document_ids: null,
    });
    assertValidationFailed(
      await admin('PATCH', { service_desk: { custom_gpt_id: null } }),
      'service_desk.enabled',
    );
    await admin('PATCH', { service_desk: { enabled: false, custom_gpt_id: null } });
  });

  it('refuses a PATCH whose If-Match is stale with 412 and the current ETag, and applies one that matches', async function () {
    const { etag } = await current();
    const ok = await admin('PATCH', { retrieval_k: 5 }, { 'if-match': etag });
    assert.equal(ok.status, 200, ok.text);
    const stale = await admin('PATCH', { retrieval_k: 6 }, { 'if-match': etag });
    assertCode(stale, 412, 'config_version_mismatch');
    assert.equal(stale.headers.get('etag'), ok.headers.get('etag'));
    assertCode(
      await admin('PATCH', { retrieval_k: 6 }, { 'if-match': '"other"' }),
      412,
      'config_version_mismatch',
    );
    assert.equal((await current()).config.retrieval_k, 5);
    // `If-Match: *` matches whatever version there is.
    const any = await admin('PATCH', { retrieval_k: 5 }, { 'if-match': '*' });
    assert.equal(any.status, 200, any.text);
  });

  it('lets exactly one of two concurrent updates from the same version win', async function () {
    const { etag } = await current();
    const replies = await Promise.all(
      [11, 12].map((k) => admin('PATCH', { retrieval_k: k }, { 'if-match': etag })),
    );
    assert.deepEqual(replies.map((r) => r.status).sort(), [200, 412]);
    const winner = replies.find((r) => r.status === 200);
    assert.equal((await current()).config.retrieval_k, config(winner as Reply).retrieval_k);
    await admin('PATCH', { retrieval_k: 3 });
  });

  it('needs can_edit_config to change it; reading needs can_access_api only', async function () {
    assertCode(await member('PATCH', { retrieval_k: 4 }), 403, 'permission_denied');
    assert.equal((await member('GET')).status, 200);
    assertCode(await as('outsider', () => a.organizationId)('GET'), 403, 'permission_denied');
  });
});
