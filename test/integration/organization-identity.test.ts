import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  GROUP,
  ORGANIZATION_LABEL,
  VERSION,
  type McpServer,
  type TenantLifecycle,
} from '@aiplane/crds';
import { kubeRequest } from '@aiplane/lib';
import {
  startMcpTestServer,
  waitFor,
  type ManagedProcess,
  type McpTestServer,
} from '@aiplane/hack';
import { ORG_SCOPE, queryRows, startTestApi, tokenFor, type TestApi } from './api-helpers.js';
import { startTestGateway, type TestGateway } from './gateway-helpers.js';
import { kubeConfig } from './harness.js';
import { kcAdmin } from './keycloak-admin.js';
import {
  addMembers,
  caller,
  callersIn,
  createAgent,
  provisionTenant,
  setMembership,
  type Tenant,
} from './fixtures/index.js';
import { link, registerRemote } from './mcp-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import { rememberSecret } from './secrets.js';

const API_NAME = 'api-org-identity';
const LOOPBACK = { AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true' };

describe('a tenant whose organization is deleted in Keycloak and re-created by the operator (API, gateway, operator, Keycloak)', function () {
  this.timeout(180_000);
  let api: TestApi | undefined;
  let gateway: TestGateway | undefined;
  let operator: ManagedProcess | undefined;
  let upstream: McpTestServer | undefined;
  let a: Tenant;
  let serverId: string;
  let agentId: string;
  let newOrganizationId = '';
  const credential = `org-identity-upstream-${randomUUID()}`;
  rememberSecret(credential);

  const query = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    queryRows<R>(api?.databaseUrl ?? '', sql, params);
  const tenantObject = () =>
    kubeRequest<TenantLifecycle>(kubeConfig(), {
      method: 'GET',
      path: `/apis/${GROUP}/${VERSION}/tenantlifecycles/${a.slug}`,
    });
  const serverObjects = async () =>
    (
      await kubeRequest<{ items: McpServer[] }>(kubeConfig(), {
        method: 'GET',
        path: `/apis/${GROUP}/${VERSION}/namespaces/${a.namespace}/mcpservers`,
      })
    ).items;

  before(async function () {
    this.timeout(240_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    upstream = await startMcpTestServer({
      token: credential,
      tools: [{ name: 'search', title: 'Search', description: 'Finds documents' }],
    });
    api = await startTestApi(API_NAME, LOOPBACK);
    gateway = await startTestGateway(api, 'gateway-org-identity', LOOPBACK);
    a = await provisionTenant(api.url, 'orgid');
    await addMembers(a.organizationId);
    const { admin, member } = callersIn(api.url, a);
    serverId = await registerRemote(admin, {
      name: 'docs',
      display_name: 'Docs',
      address: upstream.url,
    });
    await link(member, serverId, credential);
    agentId = (await createAgent(member, 'researcher', [serverId])).id;
    const overrides = await admin('PATCH', '/v1/translations/de', { common: { save: 'Sichern' } });
    assert.equal(overrides.status, 200, overrides.text);
  });

  after(async function () {
    for (const org of [a?.organizationId, newOrganizationId].filter(Boolean)) {
      await setMembership(org, 'admin', false).catch(() => undefined);
      await setMembership(org, 'member', false).catch(() => undefined);
    }
    await operator?.stop();
    await gateway?.close();
    await api?.close();
    await upstream?.close();
  });

  it('keeps its MCP servers and agents working for a member after the repair, and the sweep keeps the agent', async function () {
    // No API runs while the organization is replaced: what it keeps must survive its restart's
    // sweep, not only its watch.
    const databaseUrl = api?.databaseUrl ?? '';
    await api?.close();
    api = undefined;
    // The agent is older than the grace period, and a row of an organization no tenant ever
    // had shows when the restarted API's sweep has run.
    const past = "now() - interval '10 minutes'";
    await queryRows(databaseUrl, `update agents set updated_at = ${past} where id = $1`, [agentId]);
    const marker = randomUUID();
    await queryRows(
      databaseUrl,
      `insert into agents (organization_id, created_by, name, created_at, updated_at)
       values ($1, 'nobody', 'sweep-marker', ${past}, ${past})`,
      [marker],
    );

    const del = await kcAdmin(`/organizations/${a.organizationId}`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    let repaired: TenantLifecycle | undefined;
    await waitFor(
      'the operator to re-create the organization',
      async () => {
        const t = await tenantObject();
        const id = t.status?.organizationId;
        if (t.status?.phase === 'Ready' && id && id !== a.organizationId) repaired = t;
        return repaired !== undefined;
      },
      { timeoutMs: 60_000 },
    );
    newOrganizationId = repaired?.status?.organizationId ?? '';
    assert.deepEqual(repaired?.status?.previousOrganizationIds, [a.organizationId]);
    // The tenant's servers follow the new id (the gateway reads the label).
    await waitFor('the server to carry the new organization id', async () =>
      (await serverObjects()).every(
        (s) => s.metadata.labels?.[ORGANIZATION_LABEL] === newOrganizationId,
      ),
    );
    // The operator gave the new organization its permission groups (docs/adr/0022) before
    // anyone added a member to one.
    const groups = await kcAdmin(`/organizations/${newOrganizationId}/groups`);
    assert.deepEqual(((await groups.json()) as { name: string }[]).map((g) => g.name).sort(), [
      'can_access_api',
      'can_edit_config',
      'can_manage_models',
    ]);
    // Keycloak removed the memberships with the organization: an administrator adds them again.
    await addMembers(newOrganizationId);

    api = await startTestApi(`${API_NAME}-restarted`, LOOPBACK, {
      databaseOf: API_NAME,
      mcpOrphanGraceSeconds: 1,
    });
    await waitFor(
      'the restarted API’s sweep to run',
      async () =>
        (await query('select 1 from agents where organization_id = $1', [marker])).length === 0,
    );
    const rows = await query<{ organization_id: string; mcp_server_ids: string[] }>(
      'select organization_id, mcp_server_ids from agents where id = $1',
      [agentId],
    );
    assert.deepEqual(rows, [{ organization_id: newOrganizationId, mcp_server_ids: [serverId] }]);
    assert.deepEqual(
      await query('select organization_id from mcp_credentials where server_id = $1', [serverId]),
      [{ organization_id: newOrganizationId }],
    );

    const member = caller(api.url, 'member', newOrganizationId);
    // The organization's translation overrides moved with it.
    assert.deepEqual((await member('GET', '/v1/translations')).json(), {
      de: { common: { save: 'Sichern' } },
    });
    const agent = await member('GET', `/v1/agents/${agentId}`);
    assert.equal(agent.status, 200, agent.text);
    assert.deepEqual((agent.json() as { mcp_server_ids: string[] }).mcp_server_ids, [serverId]);
    const server = await member('GET', `/v1/mcp/servers/${serverId}`);
    assert.equal(server.status, 200, server.text);
    assert.equal((server.json() as { organization_id: string }).organization_id, newOrganizationId);

    // Through the gateway, with the member's credential linked before the repair.
    const endpoint = new URL(`${gateway?.url ?? ''}/servers/${serverId}/mcp`);
    const token = await tokenFor('member', ORG_SCOPE);
    let content: unknown;
    await waitFor(
      'the gateway to let the member call the tool',
      async () => {
        const client = new Client({ name: 'it-org-identity', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(endpoint, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        });
        try {
          await client.connect(transport);
          content = (await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))
            .content;
          return true;
        } catch {
          return false; // the gateway's caches may not have the new id yet
        } finally {
          await client.close();
        }
      },
      { intervalMs: 100 },
    );
    assert.deepEqual(content, [{ type: 'text', text: 'still here' }]);
  });
});
