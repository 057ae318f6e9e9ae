import assert from 'node:assert/strict';
import pg from 'pg';
import { CoreV1Api } from '@kubernetes/client-node';
import { API_VERSION, type McpServer } from '@aiplane/crds';
import { kubeRequest } from '@aiplane/lib';
import type { ServerRecord } from '@aiplane/api';
import {
  startMcpTestServer,
  waitFor,
  type ManagedProcess,
  type McpTestServer,
} from '@aiplane/hack';
import {
  assertCode,
  assertValidationFailed,
  keycloak,
  startTestApi,
  type Reply,
  type TestApi,
} from './api-helpers.js';
import { kubeConfig } from './harness.js';
import {
  addMembers,
  caller,
  callersIn,
  provisionTenants,
  removeMembers,
  type Tenant,
  type Call,
} from './fixtures/index.js';
import { decoded, link, randomId, secretsOf } from './mcp-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import { newSecret } from './secrets.js';

type ErrorBody = { error: { code?: string; message: string } };
type Server = ServerRecord;

const GATEWAY = 'https://gateway.example.test';
const IMAGE = 'ghcr.io/acme/files-mcp:1.2.3';
/** An ISO 8601 UTC timestamp (spec: MCP Server response, `created_at`, `updated_at`). */
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describe('MCP server management (API, kube-apiserver, PostgreSQL, Keycloak tokens, a real MCP server)', function () {
  let api: TestApi;
  let strict: TestApi;
  let operator: ManagedProcess;
  let upstream: McpTestServer;
  let a: Tenant;
  let b: Tenant;
  let admin: Call;
  let adminInB: Call;
  let member: Call;
  const upstreamToken = newSecret('upstream-token');
  /** Every response body of the suite, checked for secrets at the end. */
  const seen: string[] = [];
  const record = <T extends Reply>(r: T): T => {
    seen.push(r.text);
    return r;
  };
  const remoteBody = (name: string, extra: Record<string, unknown> = {}) => ({
    runtime: 'remote',
    name,
    display_name: `Remote ${name}`,
    address: upstream.url,
    ...extra,
  });
  const managedBody = (name: string, extra: Record<string, unknown> = {}) => ({
    runtime: 'managed',
    name,
    display_name: `Managed ${name}`,
    image: IMAGE,
    port: 8080,
    ...extra,
  });
  const create = async (who: Call, body: unknown): Promise<Server> => {
    const r = record(await who('POST', '/v1/mcp/servers', body));
    assert.equal(r.status, 200, r.text);
    return r.json() as Server;
  };
  const readResource = (t: Tenant, name: string) =>
    kubeRequest<McpServer>(kubeConfig(), {
      method: 'GET',
      path: `/apis/${API_VERSION}/namespaces/${t.namespace}/mcpservers/${name}`,
    });

  before(async function () {
    this.timeout(240_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    upstream = await startMcpTestServer({
      token: upstreamToken,
      tools: [{ name: 'search', title: 'Search', description: 'Finds documents' }],
    });
    [api, strict] = await Promise.all([
      startTestApi('api-mcp', {
        AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true',
        AIPLANE_GATEWAY_PUBLIC_URL: GATEWAY,
        AIPLANE_MCP_UPSTREAM_TIMEOUT_MS: '3000',
      }),
      startTestApi('api-mcp-strict'),
    ]);
    [a, b] = await provisionTenants(api.url, 'mcp-a', 'mcp-b');
    await addMembers(a.organizationId);
    ({ admin, member } = callersIn(api.url, a));
    adminInB = caller(api.url, 'admin', b.organizationId);
  });

  after(async function () {
    if (a) await removeMembers(a.organizationId);
    await operator?.stop();
    await Promise.all([api?.close(), strict?.close(), upstream?.close()]);
  });

  describe('servers', function () {
    it('creates a remote server and answers every field of the spec’s response', async function () {
      const address = `${upstream.url}/./?view=Full&q=%7e`;
      const s = await create(admin, remoteBody('docs', { address, description: 'Team docs' }));
      assert.match(s.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        { ...s, id: undefined, created_at: undefined, updated_at: undefined },
        {
          id: undefined,
          organization_id: a.organizationId,
          name: 'docs',
          display_name: 'Remote docs',
          description: 'Team docs',
          runtime: 'remote',
          tool_allowlist: [],
          address,
          namespace: null,
          image: null,
          port: null,
          path: null,
          arguments: [],
          env: [],
          resources: {
            cpu_request: null,
            memory_request: null,
            cpu_limit: null,
            memory_limit: null,
          },
          security: {
            run_as_non_root: null,
            run_as_user: null,
            run_as_group: null,
            read_only_root_filesystem: null,
          },
          created_at: undefined,
          updated_at: undefined,
          credential_mode: 'per_user',
          linked: false,
          credential_last_used_at: null,
          status: null,
          gateway_url: `${GATEWAY}/servers/${s.id}/mcp`,
        },
      );
      assert.ok(!Number.isNaN(Date.parse(s.created_at as string)));
      assert.ok(s.updated_at?.endsWith('Z'));
      assert.match(s.created_at ?? '', ISO_UTC);
      assert.match(s.updated_at ?? '', ISO_UTC);
      const resource = await readResource(a, 'docs');
      assert.equal(resource.metadata.uid, s.id);
      assert.equal(resource.spec.address, address, 'the address is stored exactly as sent');
    });

    it('creates a managed server in the tenant namespace: defaults, env names only, values in a Secret', async function () {
      const token = newSecret('env-value');
      const s = await create(
        admin,
        managedBody('files', {
          env: { API_TOKEN: token, _LEVEL: 'debug' },
          resources: { cpu_limit: '500m', memory_limit: null },
          security: { run_as_user: 10001 },
          tool_allowlist: ['echo'],
        }),
      );
      assert.equal(s.namespace, a.namespace);
      assert.equal(s.image, IMAGE);
      assert.equal(s.port, 8080);
      assert.equal(s.path, '/mcp');
      assert.deepEqual(s.arguments, []);
      assert.equal(s.address, null);
      assert.deepEqual(s.env, [
        { name: 'API_TOKEN', configured: true },
        { name: '_LEVEL', configured: true },
      ]);
      assert.deepEqual(s.resources, {
        cpu_request: null,
        memory_request: null,
        cpu_limit: '500m',
        memory_limit: null,
      });
      assert.deepEqual(s.security, {
        run_as_non_root: null,
        run_as_user: 10001,
        run_as_group: null,
        read_only_root_filesystem: null,
      });
      assert.equal(s.status, null, 'no status until the operator reports');
      assert.ok(!JSON.stringify(s).includes(token));
      const resource = await readResource(a, 'files');
      const secretName = resource.spec.envSecretRef?.name ?? '';
      const stored = await kubeConfig()
        .makeApiClient(CoreV1Api)
        .readNamespacedSecret({ name: secretName, namespace: a.namespace });
      assert.deepEqual(decoded(stored.data), { API_TOKEN: token, _LEVEL: 'debug' });
      assert.equal(stored.metadata?.ownerReferences?.[0]?.uid, s.id);
    });

    it('lists the organization’s servers with count, and reads one, for a member', async function () {
      const list = record(await member('GET', '/v1/mcp/servers'));
      assert.equal(list.status, 200, list.text);
      const body = list.json() as { servers: Server[]; count: number };
      assert.deepEqual(
        body.servers.map((s) => s.name),
        ['docs', 'files'],
      );
      assert.equal(body.count, 2);
      const one = record(await member('GET', `/v1/mcp/servers/${body.servers[0]?.id}`));
      assert.equal(one.status, 200);
      assert.equal((one.json() as Server).name, 'docs');
    });

    it('answers 409 mcp_server_name_conflict when the name is taken, and creates nothing', async function () {
      const before = (await readResource(a, 'docs')).metadata.resourceVersion;
      assertCode(
        record(await admin('POST', '/v1/mcp/servers', managedBody('docs', { env: { A: 'b' } }))),
        409,
        'mcp_server_name_conflict',
      );
      assert.equal((await readResource(a, 'docs')).metadata.resourceVersion, before);
      assert.deepEqual(await secretsOf(a.namespace, 'docs'), [], 'the new env Secret was removed');
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['an unknown field', { colour: 'red' }, 'colour'],
      ['the other runtime’s field', { address: 'https://mcp.example.com/mcp' }, 'address'],
      ['a name that is no DNS label', { name: 'Bad_Name' }, 'name'],
      ['a name of 64 characters', { name: 'a'.repeat(64) }, 'name'],
      ['an empty display_name', { display_name: '' }, 'display_name'],
      ['a display_name of 201 characters', { display_name: 'x'.repeat(201) }, 'display_name'],
      ['a description of 501 characters', { description: 'x'.repeat(501) }, 'description'],
      ['an image of 513 characters', { image: `ghcr.io/${'a'.repeat(503)}:1` }, 'image'],
      ['port 0', { port: 0 }, 'port'],
      ['port 65536', { port: 65536 }, 'port'],
      ['a path without a leading slash', { path: 'mcp' }, 'path'],
      ['an env name starting with a digit', { env: { '9LIVES': 'x' } }, 'env.9LIVES'],
      ['a non-string env value', { env: { A: 1 } }, 'env.A'],
      ['an unknown resources key', { resources: { gpu: '1' } }, 'resources.gpu'],
      ['a malformed quantity', { resources: { memory_limit: 'lots' } }, 'resources.memory_limit'],
      [
        'a non-boolean run_as_non_root',
        { security: { run_as_non_root: 'yes' } },
        'security.run_as_non_root',
      ],
    ];
    for (const [what, extra, field] of invalid) {
      it(`answers 422 naming ${field} for a managed body with ${what}`, async function () {
        assertValidationFailed(
          record(await admin('POST', '/v1/mcp/servers', managedBody('bad', extra))),
          field,
        );
      });
    }
    const invalidRemote: [string, Record<string, unknown>, string][] = [
      ['a managed field', { image: IMAGE }, 'image'],
      ['env', { env: {} }, 'env'],
      [
        'an address of 2049 characters',
        { address: `https://mcp.example.com/${'a'.repeat(2025)}` },
        'address',
      ],
      ['no address', { address: undefined }, 'address'],
    ];
    for (const [what, extra, field] of invalidRemote) {
      it(`answers 422 naming ${field} for a remote body with ${what}`, async function () {
        const body = JSON.parse(JSON.stringify(remoteBody('bad', extra))) as unknown;
        assertValidationFailed(record(await admin('POST', '/v1/mcp/servers', body)), field);
      });
    }

    const badImages: [string, string][] = [
      ['nginx:1.27', 'registry'],
      ['ghcr.io/acme/server', 'tag_or_digest'],
      ['ghcr.io/Acme/server:1', 'repository'],
      ['ghcr.io/acme/server@sha256:1234', 'digest'],
    ];
    for (const [image, rule] of badImages) {
      it(`answers 400 mcp_server_image_invalid for ${image} (rule ${rule})`, async function () {
        const r = record(await admin('POST', '/v1/mcp/servers', managedBody('img', { image })));
        assertCode(r, 400, 'mcp_server_image_invalid');
        assert.match((r.json() as ErrorBody).error.message, new RegExp(`rule: ${rule}`));
      });
    }

    const badAddresses: [string, string][] = [
      ['ftp://mcp.example.com/mcp', 'scheme'],
      ['https://user:pw@mcp.example.com/mcp', 'userinfo'],
      ['https://mcp.example.com', 'path'],
      ['https://mcp.example.com/', 'path'],
      ['http://10.0.0.7/mcp', 'host_not_public'],
      ['http://192.168.1.1/mcp', 'host_not_public'],
      ['http://172.16.0.1/mcp', 'host_not_public'],
      ['http://169.254.169.254/latest/meta-data', 'host_not_public'],
      ['http://100.64.0.1/mcp', 'host_not_public'],
      ['http://224.0.0.1/mcp', 'host_not_public'],
      ['http://[fd00::1]/mcp', 'host_not_public'],
      ['http://[fe80::1]/mcp', 'host_not_public'],
      ['http://[::ffff:10.0.0.1]/mcp', 'host_not_public'],
      ['http://2130706433/mcp', 'numeric_host'],
      ['http://0177.0.0.1/mcp', 'numeric_host'],
      ['http://0x7f.0.0.1/mcp', 'numeric_host'],
      ['https://does-not-exist.invalid/mcp', 'host_unresolvable'],
    ];
    for (const [address, rule] of badAddresses) {
      it(`answers 400 mcp_server_address_invalid for ${address} naming rule ${rule}`, async function () {
        const r = record(await admin('POST', '/v1/mcp/servers', remoteBody('addr', { address })));
        assertCode(r, 400, 'mcp_server_address_invalid');
        assert.match((r.json() as ErrorBody).error.message, new RegExp(`\\(rule: ${rule}\\)`));
      });
    }

    it('refuses loopback addresses when the test-only loopback setting is off', async function () {
      const strictAdmin = caller(strict.url, 'admin', a.organizationId);
      for (const address of [upstream.url, 'http://[::1]/mcp', 'http://localhost/mcp']) {
        const r = record(
          await strictAdmin('POST', '/v1/mcp/servers', remoteBody('lo', { address })),
        );
        assertCode(r, 400, 'mcp_server_address_invalid');
      }
    });

    it('answers 403 mcp_server_management_denied to a member on every Admin route', async function () {
      const id = (await readResource(a, 'docs')).metadata.uid ?? '';
      for (const [method, path, body] of [
        ['POST', '/v1/mcp/servers', remoteBody('m')],
        ['PUT', `/v1/mcp/servers/${id}`, { display_name: 'x' }],
        ['DELETE', `/v1/mcp/servers/${id}`, undefined],
        ['GET', `/v1/mcp/servers/${id}/available-tools`, undefined],
      ] as const) {
        assertCode(record(await member(method, path, body)), 403, 'mcp_server_management_denied');
      }
      assert.equal((await readResource(a, 'docs')).metadata.uid, id, 'nothing was deleted');
    });

    it('answers 400 bad_request for a path id that is not valid percent-encoding', async function () {
      assertCode(record(await member('GET', '/v1/mcp/servers/%E0%A4%A')), 400, 'bad_request');
    });

    it('answers 409 organization_not_provisioned for an organization without a tenant, and lists none', async function () {
      const acme = caller(api.url, 'admin', keycloak().organization.id);
      assertCode(
        record(await acme('POST', '/v1/mcp/servers', remoteBody('x'))),
        409,
        'organization_not_provisioned',
      );
      const list = record(await acme('GET', '/v1/mcp/servers'));
      assert.deepEqual(list.json(), { servers: [], count: 0 });
    });
  });

  describe('updates', function () {
    let docs: Server;
    let files: Server;
    before(async function () {
      const list = (await admin('GET', '/v1/mcp/servers')).json() as { servers: Server[] };
      docs = list.servers.find((s) => s.name === 'docs') as Server;
      files = list.servers.find((s) => s.name === 'files') as Server;
    });
    const put = (s: Server, body: unknown) => admin('PUT', `/v1/mcp/servers/${s.id}`, body);

    it('replaces what it sends and keeps what it omits', async function () {
      const r = record(
        await put(docs, { display_name: 'Documentation', tool_allowlist: ['search'] }),
      );
      assert.equal(r.status, 200, r.text);
      const s = r.json() as Server;
      assert.equal(s.display_name, 'Documentation');
      assert.deepEqual(s.tool_allowlist, ['search']);
      assert.equal(s.description, 'Team docs');
      assert.equal(s.address, docs.address);
      // Stamped to the millisecond (toISOString), and the server was created several tests ago.
      assert.match(s.updated_at ?? '', ISO_UTC);
      assert.ok(
        Date.parse(s.updated_at ?? '') > Date.parse(docs.updated_at ?? ''),
        `${s.updated_at} after ${docs.updated_at}`,
      );
      const r2 = record(await put(docs, { description: null }));
      assert.equal((r2.json() as Server).description, null);
    });

    it('answers 422 for name on an update, and for unknown fields', async function () {
      assertValidationFailed(record(await put(docs, { name: 'renamed' })), 'name');
      assertValidationFailed(record(await put(docs, { replicas: 2 })), 'replicas');
      assertValidationFailed(record(await put(files, { port: 0 })), 'port');
    });

    it('answers 400 mcp_server_runtime_mismatch for an update in the other runtime’s shape', async function () {
      for (const [s, body] of [
        [docs, { runtime: 'managed' }],
        [docs, { image: IMAGE, port: 80 }],
        [files, { address: 'https://mcp.example.com/mcp' }],
        [files, { runtime: 'remote' }],
      ] as const) {
        assertCode(record(await put(s, body)), 400, 'mcp_server_runtime_mismatch');
      }
      assert.equal((await readResource(a, 'files')).spec.runtime, 'managed');
    });

    it('checks image and address rules on update too', async function () {
      assertCode(record(await put(files, { image: 'nginx:1' })), 400, 'mcp_server_image_invalid');
      assertCode(
        record(await put(docs, { address: 'http://10.1.2.3/mcp' })),
        400,
        'mcp_server_address_invalid',
      );
    });

    it('follows the spec’s env table: omitted keeps, null keeps, entries replace, {} clears', async function () {
      const secretName = async () => (await readResource(a, 'files')).spec.envSecretRef?.name;
      const envOf = (r: Reply) => (r.json() as Server).env.map((e) => e.name);
      const first = await secretName();

      let r = record(await put(files, { display_name: 'Files' }));
      assert.deepEqual(envOf(r), ['API_TOKEN', '_LEVEL'], 'omitted keeps');
      assert.equal(await secretName(), first);

      r = record(await put(files, { env: null }));
      assert.deepEqual(envOf(r), ['API_TOKEN', '_LEVEL'], 'null keeps');
      assert.equal(await secretName(), first);

      const fresh = newSecret('env-new');
      r = record(await put(files, { env: { NEW_TOKEN: fresh } }));
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(envOf(r), ['NEW_TOKEN'], 'an object replaces the whole environment');
      const second = await secretName();
      assert.ok(second && second !== first);
      const secrets = await secretsOf(a.namespace, 'files');
      assert.deepEqual(
        secrets.map((x) => x.metadata?.name),
        [second],
        'the old Secret is gone',
      );
      assert.deepEqual(decoded(secrets[0]?.data), { NEW_TOKEN: fresh });

      r = record(await put(files, { env: {} }));
      assert.deepEqual(envOf(r), [], '{} removes every variable');
      assert.equal(await secretName(), undefined);
      assert.deepEqual(await secretsOf(a.namespace, 'files'), []);
    });
  });

  describe('credentials and available tools', function () {
    let docs: Server;
    before(async function () {
      docs = await create(admin, remoteBody('tools', { tool_allowlist: ['echo', 'search'] }));
    });
    const credentialPath = () => `/v1/mcp/servers/${docs.id}/credential`;

    it('answers 403 mcp_credential_not_linked for available-tools before a credential is linked', async function () {
      assertCode(
        record(await admin('GET', `/v1/mcp/servers/${docs.id}/available-tools`)),
        403,
        'mcp_credential_not_linked',
      );
    });

    it('answers 422 for an empty, blank, oversized or missing credential', async function () {
      for (const [body, field] of [
        [{ credential: '' }, 'credential'],
        [{ credential: '   \t ' }, 'credential'],
        [{ credential: 'x'.repeat(4097) }, 'credential'],
        [{}, 'credential'],
        [{ credential: 'ok', extra: 1 }, 'extra'],
      ] as const) {
        const r = record(await member('PUT', credentialPath(), body));
        assert.equal(r.status, 422, `${JSON.stringify(body).slice(0, 40)}: ${r.text}`);
        assertValidationFailed(r, field);
      }
    });

    it('links a credential per user (204), encrypted at rest, shown only as linked to its owner', async function () {
      const r = await member('PUT', credentialPath(), { credential: 'x'.repeat(4096) });
      assert.equal(r.status, 204, r.text);
      assert.equal(r.text, '');
      assert.equal(
        (record(await member('GET', `/v1/mcp/servers/${docs.id}`)).json() as Server).linked,
        true,
      );
      assert.equal(
        (record(await admin('GET', `/v1/mcp/servers/${docs.id}`)).json() as Server).linked,
        false,
      );
      const r2 = await admin('PUT', credentialPath(), { credential: upstreamToken });
      assert.equal(r2.status, 204, r2.text);
      const rows = await superuserQueryIn(
        'select sealed from mcp_credentials where server_id = $1',
        [docs.id],
      );
      assert.equal(rows.length, 2);
      for (const row of rows) {
        assert.match(row.sealed, /^v1\.local\./);
        assert.ok(!row.sealed.includes(upstreamToken) && !row.sealed.includes('xxxx'));
      }
    });

    it('lists every upstream tool with the caller’s credential, marking what the allowlist permits', async function () {
      upstream.seenAuthorization.length = 0;
      const r = record(await admin('GET', `/v1/mcp/servers/${docs.id}/available-tools`));
      assert.equal(r.status, 200, r.text);
      const body = r.json() as {
        tools: {
          name: string;
          title: string | null;
          allowed: boolean;
          input_schema: unknown;
          description: string | null;
        }[];
        count: number;
      };
      assert.deepEqual(body.tools.map((t) => t.name).sort(), ['add', 'echo', 'search']);
      assert.equal(body.count, 3);
      const byName = Object.fromEntries(body.tools.map((t) => [t.name, t]));
      assert.equal(byName.echo?.allowed, true);
      assert.equal(byName.search?.allowed, true);
      assert.equal(byName.add?.allowed, false, 'listed although the allowlist leaves it out');
      assert.equal(byName.search?.title, 'Search');
      assert.equal(byName.search?.description, 'Finds documents');
      assert.equal((byName.echo?.input_schema as { type?: string }).type, 'object');
      assert.ok(upstream.seenAuthorization.length > 0);
      assert.ok(
        upstream.seenAuthorization.every((h) => h === `Bearer ${upstreamToken}`),
        'only the caller’s own credential reached the upstream',
      );
      const after = record(await admin('GET', `/v1/mcp/servers/${docs.id}`)).json() as Server;
      assert.ok(
        after.credential_last_used_at && !Number.isNaN(Date.parse(after.credential_last_used_at)),
      );
      // Used again within the minute: the recorded last use is not rewritten on every request.
      assert.equal(
        record(await admin('GET', `/v1/mcp/servers/${docs.id}/available-tools`)).status,
        200,
      );
      const again = record(await admin('GET', `/v1/mcp/servers/${docs.id}`)).json() as Server;
      assert.equal(again.credential_last_used_at, after.credential_last_used_at);
    });

    it('answers 403 mcp_credential_rejected when the upstream refuses the linked credential', async function () {
      const other = await create(admin, remoteBody('tools-wrong'));
      await link(admin, other.id, newSecret('wrong'));
      assertCode(
        record(await admin('GET', `/v1/mcp/servers/${other.id}/available-tools`)),
        403,
        'mcp_credential_rejected',
      );
    });

    it('answers 503 mcp_server_not_ready for a managed server the operator has not reported ready', async function () {
      const list = (await admin('GET', '/v1/mcp/servers')).json() as { servers: Server[] };
      const files = list.servers.find((s) => s.name === 'files') as Server;
      await link(admin, files.id, newSecret('files'));
      assertCode(
        record(await admin('GET', `/v1/mcp/servers/${files.id}/available-tools`)),
        503,
        'mcp_server_not_ready',
      );
    });

    it('answers 503 mcp_server_unreachable when the upstream is down', async function () {
      const down = await startMcpTestServer({ token: upstreamToken });
      const s = await create(admin, remoteBody('tools-down', { address: down.url }));
      await link(admin, s.id, upstreamToken);
      await down.close();
      assertCode(
        record(await admin('GET', `/v1/mcp/servers/${s.id}/available-tools`)),
        503,
        'mcp_server_unreachable',
      );
    });

    it('unlinks with DELETE (204, twice), after which the server shows linked false', async function () {
      assert.equal((await member('DELETE', credentialPath())).status, 204);
      assert.equal((await member('DELETE', credentialPath())).status, 204);
      assert.equal(
        (record(await member('GET', `/v1/mcp/servers/${docs.id}`)).json() as Server).linked,
        false,
      );
    });
  });

  describe('organization boundaries', function () {
    let foreign: Server;
    before(async function () {
      foreign = await create(adminInB, remoteBody('foreign'));
    });

    it('answers byte-identical 403 mcp_server_access_denied for another organization’s id, a random uuid and garbage', async function () {
      const bodies = new Set<string>();
      for (const id of [foreign.id, randomId(), 'not-a-uuid']) {
        for (const [who, method, path, body] of [
          [member, 'GET', `/v1/mcp/servers/${id}`, undefined],
          [member, 'PUT', `/v1/mcp/servers/${id}/credential`, { credential: 'c' }],
          [member, 'DELETE', `/v1/mcp/servers/${id}/credential`, undefined],
          [admin, 'GET', `/v1/mcp/servers/${id}`, undefined],
          [admin, 'PUT', `/v1/mcp/servers/${id}`, { display_name: 'mine now' }],
          [admin, 'GET', `/v1/mcp/servers/${id}/available-tools`, undefined],
        ] as const) {
          const r = record(await who(method, path, body));
          assertCode(r, 403, 'mcp_server_access_denied');
          bodies.add(r.text);
        }
      }
      assert.equal(bodies.size, 1, [...bodies].join('\n'));
      assert.equal((await readResource(b, 'foreign')).spec.displayName, 'Remote foreign');
    });

    it('answers 204 to DELETE of another organization’s server and leaves it in place', async function () {
      assert.equal((await admin('DELETE', `/v1/mcp/servers/${foreign.id}`)).status, 204);
      assert.equal((await readResource(b, 'foreign')).metadata.uid, foreign.id);
      const mine = record(await adminInB('GET', `/v1/mcp/servers/${foreign.id}`));
      assert.equal(mine.status, 200);
    });
  });

  describe('agents', function () {
    let s1: Server;
    let s2: Server;
    let foreignId: string;
    type Agent = { id: string; mcp_server_ids: string[]; name: string; model: string | null };
    before(async function () {
      s1 = await create(admin, remoteBody('agent-one'));
      s2 = await create(admin, remoteBody('agent-two'));
      foreignId = (await create(adminInB, remoteBody('agent-foreign'))).id;
    });

    it('creates agents without servers when mcp_server_ids is omitted or []', async function () {
      for (const extra of [{}, { mcp_server_ids: [] }]) {
        const r = record(await member('POST', '/v1/agents', { name: 'helper', ...extra }));
        assert.equal(r.status, 201, r.text);
        const agent = r.json() as Agent;
        assert.deepEqual(agent.mcp_server_ids, []);
        assert.equal(agent.model, null);
      }
    });

    it('answers 400 agent_mcp_server_not_in_organization naming every invalid entry', async function () {
      const random = randomId();
      const r = record(
        await member('POST', '/v1/agents', {
          name: 'bad',
          mcp_server_ids: [s1.id, foreignId, random, 'nope'],
        }),
      );
      assertCode(r, 400, 'agent_mcp_server_not_in_organization');
      const message = (r.json() as ErrorBody).error.message;
      for (const id of [foreignId, random, 'nope']) assert.ok(message.includes(id), message);
      assert.ok(!message.includes(s1.id), 'a valid entry is not named');
    });

    it('follows the spec’s table on PUT: omitted keeps, null keeps, [] clears, a list replaces', async function () {
      const created = record(
        await member('POST', '/v1/agents', { name: 'linked', mcp_server_ids: [s1.id] }),
      ).json() as Agent;
      const path = `/v1/agents/${created.id}`;
      const idsAfter = async (body: unknown) => {
        const r = record(await member('PUT', path, body));
        assert.equal(r.status, 200, r.text);
        return (r.json() as Agent).mcp_server_ids;
      };
      assert.deepEqual(await idsAfter({ name: 'renamed' }), [s1.id]);
      assert.deepEqual(await idsAfter({ mcp_server_ids: null }), [s1.id]);
      assert.deepEqual(await idsAfter({ mcp_server_ids: [s2.id, s1.id] }), [s2.id, s1.id]);
      assert.deepEqual(await idsAfter({ mcp_server_ids: [] }), []);
      assertCode(
        record(await member('PUT', path, { mcp_server_ids: [foreignId] })),
        400,
        'agent_mcp_server_not_in_organization',
      );
      const read = record(await member('GET', path)).json() as Agent;
      assert.equal(read.name, 'renamed');
      assert.deepEqual(read.mcp_server_ids, []);
    });

    it('shows an agent to another member only once shared, lets a viewer neither change nor delete it (403), its owner delete it; hides other organizations’ agents', async function () {
      const mine = record(
        await admin('POST', '/v1/agents', { name: 'admin-agent' }),
      ).json() as Agent;
      const listed = async () =>
        record(await member('GET', '/v1/agents')).json() as { agents: Agent[]; count: number };
      // Not shared: absent for the member (docs/adr/0035), on every route.
      assertCode(record(await member('GET', `/v1/agents/${mine.id}`)), 404, 'agent_not_found');
      assertCode(
        record(await member('PUT', `/v1/agents/${mine.id}`, { name: 'x' })),
        404,
        'agent_not_found',
      );
      assert.ok(!(await listed()).agents.some((x) => x.id === mine.id));
      const shared = record(
        await admin('POST', `/v1/agents/${mine.id}/shares`, {
          target_type: 'user',
          target_id: keycloak().users.member.id,
          role: 'viewer',
        }),
      );
      assert.equal(shared.status, 200, shared.text);
      assertCode(
        record(await member('PUT', `/v1/agents/${mine.id}`, { name: 'x' })),
        403,
        'agent_modification_denied',
      );
      assertCode(
        record(await member('DELETE', `/v1/agents/${mine.id}`)),
        403,
        'agent_modification_denied',
      );
      assertCode(record(await adminInB('GET', `/v1/agents/${mine.id}`)), 404, 'agent_not_found');
      const list = await listed();
      assert.equal(list.count, list.agents.length);
      assert.ok(list.agents.some((x) => x.id === mine.id && x.name === 'admin-agent'));
      assert.equal((await admin('DELETE', `/v1/agents/${mine.id}`)).status, 204);
      assertCode(record(await admin('GET', `/v1/agents/${mine.id}`)), 404, 'agent_not_found');
      assertValidationFailed(record(await member('POST', '/v1/agents', { name: '' })), 'name');
      assertValidationFailed(
        record(await member('POST', '/v1/agents', { name: 'x', mcp_server_ids: [s1.id, s1.id] })),
        'mcp_server_ids',
      );
    });

    it('deleting a server removes its workload resource, env Secret, every credential and agents’ references', async function () {
      const token = newSecret('env-doomed');
      const doomed = await create(admin, managedBody('doomed', { env: { T: token } }));
      const agent = record(
        await member('POST', '/v1/agents', {
          name: 'uses-doomed',
          mcp_server_ids: [doomed.id, s1.id],
        }),
      ).json() as Agent;
      await link(member, doomed.id, newSecret('m'));
      await link(admin, doomed.id, newSecret('a'));
      assert.equal((await secretsOf(a.namespace, 'doomed')).length, 1);

      assert.equal((await admin('DELETE', `/v1/mcp/servers/${doomed.id}`)).status, 204);
      await assert.rejects(readResource(a, 'doomed'));
      assert.deepEqual(await secretsOf(a.namespace, 'doomed'), []);
      const rows = await superuserQueryIn('select 1 from mcp_credentials where server_id = $1', [
        doomed.id,
      ]);
      assert.equal(rows.length, 0);
      const after = record(await member('GET', `/v1/agents/${agent.id}`)).json() as Agent;
      assert.deepEqual(after.mcp_server_ids, [s1.id]);
      assertCode(
        record(await member('GET', `/v1/mcp/servers/${doomed.id}`)),
        403,
        'mcp_server_access_denied',
      );
      assert.equal(
        (await admin('DELETE', `/v1/mcp/servers/${doomed.id}`)).status,
        204,
        'idempotent',
      );
    });
  });

  describe('when the environment cannot be stored', function () {
    const quota = 'no-secrets';
    let kept: Server;
    before(async function () {
      kept = await create(adminInB, managedBody('kept', { env: { KEEP: 'v1' } }));
      await kubeConfig()
        .makeApiClient(CoreV1Api)
        .createNamespacedResourceQuota({
          namespace: b.namespace,
          body: { metadata: { name: quota }, spec: { hard: { 'count/secrets': '0' } } },
        });
      // The quota controller must have computed usage before admission enforces it reliably.
      await waitFor('the quota to be computed', async () => {
        const q = await kubeConfig()
          .makeApiClient(CoreV1Api)
          .readNamespacedResourceQuota({ name: quota, namespace: b.namespace });
        return q.status?.used?.['count/secrets'] !== undefined;
      });
    });
    after(async function () {
      await kubeConfig()
        .makeApiClient(CoreV1Api)
        .deleteNamespacedResourceQuota({ name: quota, namespace: b.namespace })
        .catch(() => undefined);
    });

    it('answers 503 mcp_server_environment_not_stored to a create and records nothing', async function () {
      const r = record(
        await adminInB('POST', '/v1/mcp/servers', managedBody('blocked', { env: { A: 'b' } })),
      );
      assertCode(r, 503, 'mcp_server_environment_not_stored');
      await assert.rejects(readResource(b, 'blocked'));
      assert.deepEqual(await secretsOf(b.namespace, 'blocked'), []);
      const list = (await adminInB('GET', '/v1/mcp/servers')).json() as { servers: Server[] };
      assert.ok(!list.servers.some((s) => s.name === 'blocked'));
    });

    it('answers 503 to an update with a new environment and changes nothing of the server', async function () {
      const before = await readResource(b, 'kept');
      const r = record(
        await adminInB('PUT', `/v1/mcp/servers/${kept.id}`, {
          display_name: 'Changed',
          env: { OTHER: 'x' },
        }),
      );
      assertCode(r, 503, 'mcp_server_environment_not_stored');
      const after = await readResource(b, 'kept');
      // What the API writes is unchanged: spec (generation), labels and annotations. Not the
      // resourceVersion: the operator may write the server's status meanwhile (a CI flake).
      assert.equal(after.metadata.generation, before.metadata.generation);
      assert.deepEqual(after.spec, before.spec);
      assert.deepEqual(after.metadata.labels, before.metadata.labels);
      assert.deepEqual(after.metadata.annotations, before.metadata.annotations);
      assert.deepEqual(
        (record(await adminInB('GET', `/v1/mcp/servers/${kept.id}`)).json() as Server).env,
        [{ name: 'KEEP', configured: true }],
      );
    });

    it('still accepts a server without environment (nothing to store)', async function () {
      await create(adminInB, managedBody('no-env'));
    });
  });

  // Mocha runs a describe's own tests before its nested describes: this one must be nested
  // (and last) to see every response of the suite.
  describe('afterwards', function () {
    it('never returned a credential or an environment value in any response', function () {
      assert.ok(seen.length > 100, `only ${seen.length} responses were recorded`);
      const all = seen.join('\n');
      for (const value of [upstreamToken, 'x'.repeat(4096)]) assert.ok(!all.includes(value));
      assert.ok(!/env-value-|env-new-|env-doomed-/.test(all));
    });
  });

  /** Runs SQL against the suite's API database. */
  async function superuserQueryIn(sql: string, params: unknown[]): Promise<{ sealed: string }[]> {
    const client = new pg.Client({ connectionString: api.databaseUrl });
    await client.connect();
    try {
      return (await client.query<{ sealed: string }>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }
});
