import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { tenantNamespace } from '@aiplane/crds';
import { binaryPaths } from '@aiplane/hack';
import type { TenantRecord } from '@aiplane/api';
import { describeReply, type Caller } from '../api-client.js';
import { Cluster } from '../cluster.js';
import {
  checkContext,
  loadE2eConfig,
  MCP_IMAGE,
  MCP_PATH,
  MCP_PORT,
  NAMESPACE,
  RELEASE,
  SERVICES,
  type E2eConfig,
} from '../config.js';
import { dumpDiagnostics } from '../diagnostics.js';
import { connectThroughGateway } from '../gateway-client.js';
import { log } from '../log.js';
import { isolationBreaches, probePod, runProbePod, type ProbeTarget } from '../network-probe.js';
import { observeTenant, tenantDatabaseName } from '../observe-tenant.js';
import { installPlatform, REALM, stopPortForwards, type Platform } from '../platform.js';
import { secrets } from '../redact.js';
import { tenantLeftovers, tenantMissing } from '../tenant-footprint.js';
import { waitUntil } from '../wait-until.js';

/** The fields of the MCP Server response (spec: "MCP Server response") the suite reads. */
interface ServerReply {
  id: string;
  organization_id: string;
  name: string;
  runtime: string;
  namespace: string | null;
  image: string | null;
  port: number | null;
  path: string | null;
  env: { name: string; configured: boolean }[];
  linked: boolean;
  status: {
    ready: boolean;
    replicas: number;
    ready_replicas: number;
    url: string | null;
  } | null;
  gateway_url: string | null;
}

const MINUTE = 60_000;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** waitUntil with the suite's defaults: a poll every 2 s, observations redacted. */
function poll<T>(
  observe: () => Promise<T>,
  opts: { what: string; until: (v: T) => boolean; timeoutMs: number; describe?: (v: T) => string },
): Promise<T> {
  const describe = opts.describe ?? ((v: T) => JSON.stringify(v).slice(0, 2000));
  return waitUntil(observe, {
    ...opts,
    intervalMs: 2000,
    describe: (v) => secrets.redact(describe(v)),
  });
}

describe('aiplane on kind: a tenant, a managed MCP server behind the gateway, a clean deletion', function () {
  let config: E2eConfig | undefined;
  let cluster: Cluster | undefined;
  let p: Platform;
  let failed = false;

  const slug = `e2e-${randomBytes(3).toString('hex')}`;
  const namespace = tenantNamespace(slug);
  /** The MCP server's name in the platform (a DNS label) and its serverInfo name (from env). */
  const serverName = 'e2e-mcp';
  const serverInfoName = `aiplane-e2e-${randomBytes(4).toString('hex')}`;
  let tenant: {
    id: string;
    slug: string;
    organizationId: string;
    databaseNames: string[];
    mcpServerIds: string[];
  };
  let server: ServerReply;

  const admin = async (organizationId?: string): Promise<Caller> => ({
    token: await p.tokens.get('admin'),
    ...(organizationId !== undefined ? { organizationId } : {}),
  });

  before(async function () {
    this.timeout(30 * MINUTE);
    // Diagnostics are gathered only from the kind cluster: config is set once that is proven.
    const loaded = loadE2eConfig(process.env, { binaries: binaryPaths });
    const kind = new Cluster(loaded.kubeconfig);
    checkContext(kind.currentContext(), process.env);
    config = loaded;
    cluster = kind;
    try {
      p = await installPlatform(process.env, config, cluster);
    } catch (err) {
      failed = true;
      throw err;
    }
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });

  after(async function () {
    this.timeout(10 * MINUTE);
    try {
      if (failed && config) {
        await dumpDiagnostics({
          config,
          cluster,
          systemNamespace: NAMESPACE,
          release: RELEASE,
          tenantNamespaces: [namespace],
        });
      }
    } finally {
      stopPortForwards();
    }
  });

  it('provisions a tenant with a dedicated database to Ready through the admin API', async function () {
    this.timeout(10 * MINUTE);
    const body = {
      slug,
      display_name: `e2e ${slug}`,
      identity: { enabled: true },
      database: { dedicated: true },
    };
    const created = await p.api.call('POST', '/v1/admin/tenants', await admin(), body);
    assert.equal(created.status, 202, describeReply('POST', '/v1/admin/tenants', created));
    const accepted = created.json<TenantRecord>();
    assert.equal(accepted.slug, slug);
    assert.equal(accepted.phase, 'Pending');
    assert.equal(accepted.stage, 'Accepted');
    assert.equal(accepted.services.database.enabled, true);
    log(`tenant ${slug} accepted (${accepted.id}); waiting for Ready`);

    const path = `/v1/admin/tenants/${accepted.id}`;
    const ready = await poll(
      async () => {
        const r = await p.api.call('GET', path, await admin());
        if (r.status !== 200) throw new Error(describeReply('GET', path, r));
        return r.json<TenantRecord>();
      },
      {
        what: `tenant ${slug} to be Ready`,
        until: (r) => r.phase === 'Ready',
        timeoutMs: 6 * MINUTE,
        describe: (r) =>
          `phase ${r.phase}, stage ${r.stage}, conditions ${JSON.stringify(r.conditions)}`,
      },
    );
    assert.equal(ready.stage, 'Ready');
    assert.equal(ready.desired_state, 'present');
    assert.equal(ready.services.identity.ready, true);
    assert.equal(ready.services.database.ready, true);
    assert.equal(ready.services.database.name, tenantDatabaseName(slug));
    assert.equal(ready.services.database.secret_name, 'tenant-database');
    assert.ok(ready.organization_id, 'a Ready tenant names its organization');
    for (const type of ['NamespaceReady', 'IdentityReady', 'DatabaseReady', 'Ready']) {
      const c = ready.conditions.find((x) => x.type === type);
      assert.equal(c?.status, 'True', `condition ${type}: ${JSON.stringify(c)}`);
    }
    tenant = {
      id: ready.id,
      slug,
      organizationId: ready.organization_id,
      databaseNames: [tenantDatabaseName(slug)],
      mcpServerIds: [],
    };
    log(`tenant ${slug} is Ready (organization ${tenant.organizationId})`);

    const labels = await p.cluster.namespaceLabels(namespace);
    assert.equal(labels['pod-security.kubernetes.io/enforce'], 'restricted');
    assert.deepEqual(await p.cluster.secretKeys(namespace, 'tenant-database'), [
      'database',
      'host',
      'password',
      'port',
      'uri',
      'username',
    ]);
    // The positive control of the final check: each place the deletion must clean is seen.
    const seen = await observeTenant(p, tenant);
    assert.deepEqual(tenantMissing(seen, { database: tenantDatabaseName(slug) }), []);
  });

  it('registers a managed MCP server as a platform admin and reports ready: true once the operator completed an MCP handshake', async function () {
    this.timeout(10 * MINUTE);
    const body = {
      runtime: 'managed',
      name: serverName,
      display_name: 'e2e MCP server',
      description: 'The SDK example server of e2e/mcp-server',
      image: MCP_IMAGE,
      port: MCP_PORT,
      path: MCP_PATH,
      env: { MCP_SERVER_NAME: serverInfoName },
    };
    const caller = await admin(tenant.organizationId);
    const created = await p.api.call('POST', '/v1/mcp/servers', caller, body);
    assert.equal(created.status, 200, describeReply('POST', '/v1/mcp/servers', created));
    assert.ok(!created.text.includes(serverInfoName), 'environment values are never returned');
    const s = created.json<ServerReply>();
    assert.match(s.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(s.organization_id, tenant.organizationId);
    assert.equal(s.name, serverName);
    assert.equal(s.runtime, 'managed');
    assert.equal(s.namespace, namespace);
    assert.equal(s.image, MCP_IMAGE);
    assert.equal(s.port, MCP_PORT);
    assert.equal(s.path, MCP_PATH);
    assert.deepEqual(s.env, [{ name: 'MCP_SERVER_NAME', configured: true }]);
    assert.equal(s.gateway_url, `${p.gatewayBase}/servers/${s.id}/mcp`);
    tenant.mcpServerIds.push(s.id);
    log(`MCP server ${s.id} registered; waiting for ready: true`);

    const path = `/v1/mcp/servers/${s.id}`;
    server = await poll(
      async () => {
        const r = await p.api.call('GET', path, caller);
        if (r.status !== 200) throw new Error(describeReply('GET', path, r));
        return r.json<ServerReply>();
      },
      {
        what: `MCP server ${serverName} to report ready: true`,
        until: (r) => r.status?.ready === true,
        timeoutMs: 6 * MINUTE,
        describe: (r) => `status ${JSON.stringify(r.status)}`,
      },
    );
    assert.equal(server.status?.replicas, 1);
    assert.equal(server.status?.ready_replicas, 1);
    assert.equal(
      server.status?.url,
      `http://${serverName}.${namespace}.svc:${MCP_PORT}${MCP_PATH}`,
    );
    assert.deepEqual(await p.cluster.mcpServersOf(namespace, tenant.organizationId), [
      `${namespace}/${serverName}`,
    ]);
  });

  it('refuses a user outside the organization at the gateway with mcp_server_access_denied', async function () {
    this.timeout(2 * MINUTE);
    const url = server.gateway_url ?? assert.fail('the server has no gateway_url');
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await p.tokens.get('nobody')}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'aiplane-e2e', version: '1.0.0' },
        },
      }),
    });
    const text = await res.text();
    assert.equal(res.status, 403, secrets.redact(text));
    const reply = JSON.parse(text) as { error?: { code?: number; data?: { code?: string } } };
    assert.equal(reply.error?.code, -32002);
    assert.equal(reply.error?.data?.code, 'mcp_server_access_denied');
  });

  it('lets a member of the tenant organization link a credential and call add through the gateway with the official SDK client', async function () {
    this.timeout(5 * MINUTE);
    const memberId = p.keycloak.info.users.member.id;
    // The body of "add member" is the user id as a JSON string (Keycloak 26).
    await p.keycloak.admin.post(
      `/${REALM}/organizations/${tenant.organizationId}/members`,
      memberId,
    );
    p.tokens.forget('member');
    // A member of several organizations gets the claim only when all are asked for.
    const token = await p.tokens.get('member', 'openid organization:*');
    const member: Caller = { token, organizationId: tenant.organizationId };

    const credentialPath = `/v1/mcp/servers/${server.id}/credential`;
    const linked = await p.api.call('PUT', credentialPath, member, {
      credential: p.secrets.mcpCredential,
    });
    assert.equal(linked.status, 204, describeReply('PUT', credentialPath, linked));
    const seen = await p.api.call('GET', `/v1/mcp/servers/${server.id}`, member);
    assert.equal(seen.status, 200, describeReply('GET', `/v1/mcp/servers/${server.id}`, seen));
    assert.equal(seen.json<ServerReply>().linked, true);
    assert.ok(!seen.text.includes(p.secrets.mcpCredential), 'a credential is never returned');
    // The positive control of the final check: the credential is seen where it is stored.
    assert.deepEqual((await observeTenant(p, tenant)).mcpCredentials, [server.id]);

    const url = server.gateway_url ?? assert.fail('the server has no gateway_url');
    const session = await connectThroughGateway(url, token);
    try {
      // The environment the platform stored reached the pod (it names the server).
      assert.equal(session.serverName, serverInfoName);
      assert.deepEqual(await session.tools(), ['add', 'credential_fingerprint', 'echo']);
      assert.equal(await session.call('add', { a: 20, b: 22 }), '42');
      assert.equal(
        await session.call('echo', { text: 'through the gateway' }),
        'through the gateway',
      );
      // The upstream saw the member's linked credential, not the member's platform token.
      assert.equal(
        await session.call('credential_fingerprint', {}),
        sha256(p.secrets.mcpCredential),
      );
    } finally {
      await session.close();
    }
    log('add, echo and credential_fingerprint answered through the gateway');
  });

  it('isolates tenants: a pod of another tenant reaches neither the API nor this tenant’s MCP server, though names resolve', async function () {
    this.timeout(15 * MINUTE);
    // A second tenant, whose namespace holds the probe (docs/adr/0014). The gateway reaching the
    // first tenant's server (the test before) is the positive control of the ingress policy.
    const other = `e2e-np-${randomBytes(3).toString('hex')}`;
    const created = await p.api.call('POST', '/v1/admin/tenants', await admin(), {
      slug: other,
      identity: { enabled: true },
    });
    assert.equal(created.status, 202, describeReply('POST', '/v1/admin/tenants', created));
    const id = created.json<TenantRecord>().id;
    const path = `/v1/admin/tenants/${id}`;
    try {
      await poll(async () => (await p.api.call('GET', path, await admin())).json<TenantRecord>(), {
        what: `tenant ${other} to be Ready`,
        until: (r) => r.phase === 'Ready',
        timeoutMs: 6 * MINUTE,
        describe: (r) => `phase ${r.phase}, conditions ${JSON.stringify(r.conditions)}`,
      });
      const targets: ProbeTarget[] = [
        {
          name: 'the API',
          host: `${SERVICES.api.name}.${NAMESPACE}.svc.cluster.local`,
          port: SERVICES.api.port,
        },
        {
          name: 'PostgreSQL',
          host: `${SERVICES.postgres.name}.${NAMESPACE}.svc.cluster.local`,
          port: SERVICES.postgres.port,
        },
        {
          name: 'the first tenant’s MCP server',
          host: `${serverName}.${namespace}.svc.cluster.local`,
          port: MCP_PORT,
        },
      ];
      const results = await runProbePod(
        p.cluster.kc,
        probePod({
          name: 'network-probe',
          namespace: tenantNamespace(other),
          image: MCP_IMAGE,
          targets,
          timeoutMs: 10_000,
        }),
        3 * MINUTE,
      );
      log(`network probe from ${tenantNamespace(other)}: ${JSON.stringify(results)}`);
      assert.deepEqual(isolationBreaches(results, targets), []);
    } finally {
      await p.api.call('DELETE', path, await admin());
      await poll(async () => (await p.api.call('GET', path, await admin())).status, {
        what: `tenant ${other} to be gone`,
        until: (status) => status === 404,
        timeoutMs: 8 * MINUTE,
      });
    }
  });

  it('deletes the tenant and leaves nothing behind: record, TenantLifecycle, namespace, McpServer, organization, database and role', async function () {
    this.timeout(15 * MINUTE);
    const path = `/v1/admin/tenants/${tenant.id}`;
    const deleted = await p.api.call('DELETE', path, await admin());
    assert.equal(deleted.status, 202, describeReply('DELETE', path, deleted));
    const record = deleted.json<TenantRecord>();
    assert.equal(record.phase, 'Deleting');
    assert.equal(record.desired_state, 'absent');
    log(`tenant ${slug} deletion accepted; waiting for 404`);

    await poll(async () => (await p.api.call('GET', path, await admin())).status, {
      what: `GET ${path} to answer 404`,
      until: (status) => status === 404,
      timeoutMs: 8 * MINUTE,
    });
    const last = await poll(() => observeTenant(p, tenant), {
      what: `nothing of tenant ${slug} to be left`,
      until: (o) => tenantLeftovers(o).length === 0,
      timeoutMs: 5 * MINUTE,
      describe: (o) => tenantLeftovers(o).join('; '),
    });
    assert.deepEqual(tenantLeftovers(last), []);
    log(`tenant ${slug} is gone, and nothing of it is left`);
  });
});
