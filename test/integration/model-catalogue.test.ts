import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Model } from '@aiplane/api';
import { startOpenAiTestBackend, type OpenAiTestBackend } from '@aiplane/hack';
import {
  assertCode,
  assertValidationFailed,
  keycloak,
  queryRows,
  startTestApi,
  type DevUser,
  type TestApi,
} from './api-helpers.js';
import { caller, type Call } from './fixtures/index.js';
import { setPermissionsIn } from './keycloak-admin.js';
import { newSecret } from './secrets.js';

describe('model catalogue: /v1/models (can_manage_models, SSRF-checked backends, write-only keys)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let strict: TestApi;
  let backend: OpenAiTestBackend;
  let acme: string;
  const other = randomUUID();
  const as = (user: DevUser, organizationId = acme, on = api): Call =>
    caller(on.url, user, organizationId);
  const SECRET = newSecret('sk-backend');

  before(async function () {
    backend = await startOpenAiTestBackend();
    [api, strict] = await Promise.all([
      startTestApi('model-catalogue', { AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true' }),
      startTestApi('model-catalogue-strict'),
    ]);
    acme = keycloak().organization.id;
  });

  after(async function () {
    await Promise.all([api?.close(), strict?.close(), backend?.close()]);
  });

  it('answers 403 permission_denied to a member without can_manage_models, reading included', async function () {
    assertCode(await as('member')('GET', '/v1/models'), 403, 'permission_denied');
    assertCode(
      await as('member')('POST', '/v1/models', {
        name: 'm',
        mode: 'chat',
        base_url: backend.baseUrl,
      }),
      403,
      'permission_denied',
    );
  });

  it('creates a chat model for the organization, never returning its API key, and lists it', async function () {
    const r = await as('admin')('POST', '/v1/models', {
      name: 'echo-chat',
      mode: 'chat',
      base_url: backend.baseUrl,
      backend_model: 'org/echo-7b',
      api_key: SECRET,
      context_window: 8192,
    });
    assert.equal(r.status, 201, r.text);
    assert.ok(!r.text.includes(SECRET), 'the answer leaks the key');
    const m = r.json() as Model;
    assert.equal(r.headers.get('location'), `/v1/models/${m.id}`);
    assert.deepEqual(
      { ...m, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        name: 'echo-chat',
        mode: 'chat',
        organization_id: acme,
        backend_kind: 'openai',
        base_url: backend.baseUrl,
        backend_model: 'org/echo-7b',
        has_api_key: true,
        context_window: 8192,
        tokenizer: null,
        in_cluster: false,
        active: true,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    const list = await as('admin')('GET', '/v1/models');
    assert.ok(!list.text.includes(SECRET));
    assert.deepEqual(
      (list.json() as { models: Model[] }).models.map((x) => x.name),
      ['echo-chat'],
    );
    const one = await as('admin')('GET', `/v1/models/${m.id}`);
    assert.equal((one.json() as Model).name, 'echo-chat');
    // Sealed at rest: the row holds an envelope, not the key.
    const rows = await queryRows<{ api_key_sealed: string }>(
      api.databaseUrl,
      'select api_key_sealed from model_catalogue where id = $1',
      [m.id],
    );
    assert.ok(rows[0]?.api_key_sealed && !rows[0].api_key_sealed.includes(SECRET));
  });

  it('answers 409 model_exists for a second name in one organization, not in another', async function () {
    const body = { name: 'dup', mode: 'embedding', base_url: backend.baseUrl };
    assert.equal((await as('admin')('POST', '/v1/models', body)).status, 201);
    assertCode(await as('admin')('POST', '/v1/models', body), 409, 'model_exists');
    assert.equal((await as('admin', other)('POST', '/v1/models', body)).status, 201);
  });

  it('refuses loopback and private backend addresses with 400 model_backend_address_invalid (strict API)', async function () {
    for (const base_url of [
      backend.baseUrl,
      'http://10.1.2.3/v1',
      'http://169.254.169.254/latest',
      'http://localhost:11434/v1',
    ]) {
      const r = await as('admin', acme, strict)('POST', '/v1/models', {
        name: `m-${randomUUID().slice(0, 8)}`,
        mode: 'chat',
        base_url,
      });
      assertCode(r, 400, 'model_backend_address_invalid');
      assert.match(r.text, /host_not_public/);
    }
    assertCode(
      await as('admin', acme, strict)('POST', '/v1/models', {
        name: 'no-path',
        mode: 'chat',
        base_url: 'https://example.com',
      }),
      400,
      'model_backend_address_invalid',
    );
  });

  it('lets a platform admin mark a backend in-cluster, whose address is then not SSRF-checked', async function () {
    const r = await as('admin', acme, strict)('POST', '/v1/models', {
      name: 'in-cluster',
      mode: 'chat',
      base_url: 'http://vllm.models.svc.cluster.local:8000/v1',
      in_cluster: true,
    });
    assert.equal(r.status, 201, r.text);
    assert.equal((r.json() as Model).in_cluster, true);
  });

  it('changes fields with PATCH (a null api_key removes it) and deletes an entry', async function () {
    const created = (
      await as('admin')('POST', '/v1/models', {
        name: 'patch-me',
        mode: 'chat',
        base_url: backend.baseUrl,
        api_key: SECRET,
      })
    ).json() as Model;
    const patched = await as('admin')('PATCH', `/v1/models/${created.id}`, {
      mode: 'rerank',
      active: false,
      api_key: null,
    });
    assert.equal(patched.status, 200, patched.text);
    const p = patched.json() as Model;
    assert.deepEqual([p.mode, p.active, p.has_api_key], ['rerank', false, false]);
    assertValidationFailed(
      await as('admin')('PATCH', `/v1/models/${created.id}`, { mode: 'vision' }),
      'mode',
    );
    assert.equal((await as('admin')('DELETE', `/v1/models/${created.id}`)).status, 204);
    assertCode(await as('admin')('GET', `/v1/models/${created.id}`), 404, 'model_not_found');
    assertCode(await as('admin')('DELETE', `/v1/models/${created.id}`), 404, 'model_not_found');
  });

  it('keeps a tokenizer path inside the model store: set, changed, forgotten with null; ., .. and absolute paths refused (422, the field named)', async function () {
    const r = await as('admin')('POST', '/v1/models', {
      name: 'with-tokenizer',
      mode: 'chat',
      base_url: backend.baseUrl,
      tokenizer: 'minilm/tokenizer.json',
    });
    assert.equal(r.status, 201, r.text);
    const m = r.json() as Model & { tokenizer: string | null };
    assert.equal(m.tokenizer, 'minilm/tokenizer.json');
    const changed = await as('admin')('PATCH', `/v1/models/${m.id}`, {
      tokenizer: 'minilm/v2/tokenizer.json',
    });
    assert.equal((changed.json() as { tokenizer: string }).tokenizer, 'minilm/v2/tokenizer.json');
    const kept = await as('admin')('PATCH', `/v1/models/${m.id}`, { active: true });
    assert.equal((kept.json() as { tokenizer: string }).tokenizer, 'minilm/v2/tokenizer.json');
    const forgotten = await as('admin')('PATCH', `/v1/models/${m.id}`, { tokenizer: null });
    assert.equal((forgotten.json() as { tokenizer: null }).tokenizer, null);
    for (const tokenizer of [
      '../other-org/tokenizer.json',
      '/etc/passwd',
      './t.json',
      'a/.hidden',
      '',
    ]) {
      assertValidationFailed(
        await as('admin')('PATCH', `/v1/models/${m.id}`, { tokenizer }),
        'tokenizer',
      );
    }
  });

  it('shows platform-wide entries to every organization and keeps an organization’s entries to itself', async function () {
    const r = await as('admin')('POST', '/v1/models', {
      name: 'shared-rerank',
      mode: 'rerank',
      base_url: backend.baseUrl,
      platform_wide: true,
    });
    assert.equal(r.status, 201, r.text);
    assert.equal((r.json() as Model).organization_id, null);
    const inOther = (await as('admin', other)('GET', '/v1/models')).json() as { models: Model[] };
    assert.deepEqual(inOther.models.map((m) => m.name).sort(), ['dup', 'shared-rerank']);
    // The reranker check of /v1/config reads the catalogue: a platform-wide rerank model counts,
    // and an organization's own counts only in it.
    const config = await as('admin', other)('PATCH', '/v1/config', {
      reranker_model: 'shared-rerank',
      reranker_enabled: true,
    });
    assert.equal(config.status, 200, config.text);
    const own = (
      await as('admin')('POST', '/v1/models', {
        name: 'acme-rerank',
        mode: 'rerank',
        base_url: backend.baseUrl,
      })
    ).json() as Model;
    assert.equal(own.organization_id, acme);
    assertValidationFailed(
      await as('admin', other)('PATCH', '/v1/config', { reranker_model: 'acme-rerank' }),
      'reranker_model',
    );
    assert.equal(
      (await as('admin')('PATCH', '/v1/config', { reranker_model: 'acme-rerank' })).status,
      200,
    );
  });
  it('lets a tenant’s model manager write the organization’s entries but not platform-wide ones, in-cluster ones or an in-cluster address (403 model_catalogue_admin_only)', async function () {
    const member = keycloak().users.member.id;
    await setPermissionsIn(acme, member, ['can_access_api', 'can_manage_models']);
    try {
      const own = await as('member')('POST', '/v1/models', {
        name: 'members-own',
        mode: 'chat',
        base_url: backend.baseUrl,
      });
      assert.equal(own.status, 201, own.text);
      for (const extra of [{ platform_wide: true }, { in_cluster: true }]) {
        assertCode(
          await as('member')('POST', '/v1/models', {
            name: 'not-allowed',
            mode: 'chat',
            base_url: backend.baseUrl,
            ...extra,
          }),
          403,
          'model_catalogue_admin_only',
        );
      }
      // An in-cluster row of the organization (set by a platform admin): its address stays the
      // admin's to change.
      const inCluster = (
        await as('admin')('POST', '/v1/models', {
          name: 'acme-in-cluster',
          mode: 'chat',
          base_url: 'http://vllm.models.svc.cluster.local:8000/v1',
          in_cluster: true,
        })
      ).json() as Model;
      assertCode(
        await as('member')('PATCH', `/v1/models/${inCluster.id}`, {
          base_url: 'http://postgres.aiplane.svc.cluster.local:5432/v1',
        }),
        403,
        'model_catalogue_admin_only',
      );
      const renamed = await as('member')('PATCH', `/v1/models/${inCluster.id}`, {
        context_window: 4096,
      });
      assert.equal(renamed.status, 200, renamed.text);
      const shared = (
        (await as('member')('GET', '/v1/models')).json() as { models: Model[] }
      ).models.find((m) => m.organization_id === null);
      assert.ok(shared, 'the member sees the platform-wide entries');
      assertCode(
        await as('member')('PATCH', `/v1/models/${shared.id}`, { active: false }),
        403,
        'model_catalogue_admin_only',
      );
      assertCode(
        await as('member')('DELETE', `/v1/models/${shared.id}`),
        403,
        'model_catalogue_admin_only',
      );
    } finally {
      await setPermissionsIn(acme, member, ['can_access_api']);
    }
  });
});
