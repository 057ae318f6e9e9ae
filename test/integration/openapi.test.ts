import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { TSchema } from '@sinclair/typebox';
import { validator } from '@aiplane/lib/service';
import { call, startTestApi, tokenFor, type TestApi } from './api-helpers.js';
import { rememberSecret } from './secrets.js';

interface Operation {
  operationId: string;
  security?: unknown[];
  'x-aiplane-permissions'?: string[];
  'x-aiplane-websocket'?: boolean;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

describe('the OpenAPI document at /openapi.json (real API)', function () {
  let api: TestApi;
  let doc: Document;

  /** The documented operations as `METHOD /path`. */
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
  const operationOf = (method: string, path: string): Operation => {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method} ${path} is not documented`);
    return op;
  };

  /** A schema of the document with its `#/components/schemas/…` references inlined. */
  const inlined = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inlined);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: string }).$ref;
    if (ref !== undefined) {
      const name = ref.replace('#/components/schemas/', '');
      return inlined(doc.components.schemas[name]);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inlined(v)]));
  };

  /** Checks a real answer against the response schema the document gives for it. */
  function assertDocumented(method: string, path: string, status: number, body: unknown): void {
    const schema = operationOf(method, path).responses[String(status)]?.content?.[
      'application/json'
    ]?.schema as { $ref?: string } | undefined;
    assert.ok(schema?.$ref, `${method} ${path} ${status} has no named JSON schema`);
    assert.doesNotThrow(
      () => validator(inlined(schema) as TSchema)(body),
      `${method} ${path} ${status}: ${JSON.stringify(body)}`,
    );
  }

  before(async function () {
    api = await startTestApi('openapi');
    const r = await call(`${api.url}/openapi.json`);
    assert.equal(r.status, 200, r.text);
    doc = r.json() as Document;
  });
  after(async function () {
    await api?.close();
  });

  it('is public: answered without credentials', async function () {
    const r = await call(`${api.url}/openapi.json`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  });

  it('is a valid OpenAPI 3.1 document', async function () {
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('documents exactly the routes the app mounts, plus the WebSocket /v1/stt', function () {
    const mounted = api.routes.map(
      (r) => `${r.method} ${r.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`,
    );
    assert.ok(mounted.length >= 30, `only ${mounted.length} routes mounted`);
    assert.deepEqual([...operations()].sort(), [...mounted, 'GET /v1/stt'].sort());
    assert.equal(operationOf('get', '/v1/stt')['x-aiplane-websocket'], true);
  });

  it('offers API-key authorization: X-Api-Key and Bearer, either one on every /v1 and /anthropic/v1 route', function () {
    assert.deepEqual(doc.components.securitySchemes.ApiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'X-Api-Key',
      description: 'A platform API key, `sk-svc-v1-…` (create one with `POST /v1/api-keys`).',
    });
    assert.equal((doc.components.securitySchemes.Bearer as { scheme: string }).scheme, 'bearer');
    // The vendor-compatible API is authenticated like /v1 (docs/adr/0024).
    const authenticated = (path: string) =>
      path.startsWith('/v1/') || path.startsWith('/anthropic/v1/');
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item)) {
        if (authenticated(path) && !op['x-aiplane-websocket']) {
          assert.equal(op.security, undefined, `${op.operationId} overrides the global security`);
          assert.ok(op['x-aiplane-permissions']?.includes('can_access_api'), op.operationId);
        } else if (!authenticated(path)) {
          assert.deepEqual(op.security, [], `${op.operationId} is public`);
        }
      }
    }
  });

  it('documents the permission a route really needs: a member gets 403 on PATCH /v1/config, can_edit_config', async function () {
    assert.deepEqual(operationOf('patch', '/v1/config')['x-aiplane-permissions'], [
      'can_access_api',
      'can_edit_config',
    ]);
    assert.deepEqual(operationOf('get', '/v1/config')['x-aiplane-permissions'], ['can_access_api']);
    const member = bearer(await tokenFor('member'));
    const patch = await call(`${api.url}/v1/config`, {
      method: 'PATCH',
      headers: member,
      body: { retrieval_k: 4 },
    });
    assert.equal(patch.status, 403, patch.text);
    assert.equal((patch.json() as { error: { code: string } }).error.code, 'permission_denied');
    assert.ok(operationOf('patch', '/v1/config').responses['403']);
    const get = await call(`${api.url}/v1/config`, { headers: member });
    assert.equal(get.status, 200, get.text);
    assertDocumented('get', '/v1/config', 200, get.json());
  });

  it('describes real answers: /v1/me, a created API key, the key list, the theme', async function () {
    const jwt = bearer(await tokenFor('admin'));
    const created = await call(`${api.url}/v1/api-keys`, {
      method: 'POST',
      headers: jwt,
      body: { name: 'openapi test' },
    });
    assert.equal(created.status, 201, created.text);
    const key = (created.json() as { key: string }).key;
    rememberSecret(key);
    assertDocumented('post', '/v1/api-keys', 201, created.json());
    const me = await call(`${api.url}/v1/me`, { headers: { 'x-api-key': key } });
    assertDocumented('get', '/v1/me', 200, me.json());
    const keys = await call(`${api.url}/v1/api-keys`, { headers: jwt });
    assertDocumented('get', '/v1/api-keys', 200, keys.json());
    const theme = await call(`${api.url}/v1/branding/theme`, { headers: jwt });
    assertDocumented('get', '/v1/branding/theme', 200, theme.json());
    const refused = await call(`${api.url}/v1/me`);
    assertDocumented('get', '/v1/me', 401, refused.json());
  });

  it('serves /docs and /scalar publicly, with their assets and a strict Content-Security-Policy', async function () {
    for (const [page, assets] of [
      ['/docs', ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']],
      ['/scalar', ['/scalar/assets/standalone.js']],
    ] as const) {
      const r = await call(`${api.url}${page}`);
      assert.equal(r.status, 200, page);
      assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(r.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      for (const asset of [...assets, `${page}/assets/init.js`]) {
        assert.ok(r.text.includes(asset), `${page} loads ${asset}`);
        assert.equal((await call(`${api.url}${asset}`)).status, 200, asset);
      }
      const other = await call(`${api.url}${page}/assets/package.json`);
      assert.equal(other.status, 404, 'only the listed files are served');
    }
  });
});
