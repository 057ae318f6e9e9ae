import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { API_VERSION } from '@aiplane/crds';
import {
  startMcpTestServer,
  waitFor,
  type ManagedProcess,
  type McpTestServer,
} from '@aiplane/hack';
import { queryRows, startTestApi, type TestApi } from './api-helpers.js';
import { kubeDeleteAndWait } from './kube-helpers.js';
import {
  addMembers,
  caller,
  CLEANUP_GRACE_SECONDS,
  CLEANUP_WITHIN_MS,
  callersIn,
  createAgent,
  provisionTenants,
  removeMembers,
  type Agent,
  type Tenant,
  type Call,
} from './fixtures/index.js';
import { link, registerRemote } from './mcp-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import { newSecret } from './secrets.js';
import { adminCall, awaitTenantGone } from './tenant-helpers.js';

/** The first API's name, and so its database's, which the restarted API reuses. */
const API_NAME = 'api-mcp-cleanup';

describe('MCP server records when the server goes without the API’s route (API, kube-apiserver, PostgreSQL, Keycloak, a real MCP server)', function () {
  let api: TestApi | undefined;
  let databaseUrl: string;
  let operator: ManagedProcess;
  let upstream: McpTestServer;
  let a: Tenant;
  let doomed: Tenant;
  let admin: Call;
  let member: Call;
  /** A server of tenant a that stays for the whole suite. */
  let kept: string;
  const upstreamToken = newSecret('upstream-token');

  const query = <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
    queryRows<R>(databaseUrl, sql, params);
  /** How many rows of each table name the server. */
  const rowsOf = async (serverId: string) => {
    const count = async (table: string) =>
      Number(
        (
          await query<{ n: string }>(`select count(*) as n from ${table} where server_id = $1`, [
            serverId,
          ])
        )[0]?.n,
      );
    return {
      credentials: await count('mcp_credentials'),
      clients: await count('mcp_oauth_clients'),
      states: await count('mcp_oauth_states'),
    };
  };
  const NONE = { credentials: 0, clients: 0, states: 0 };
  const storedIds = async (agentId: string) =>
    (
      await query<{ ids: string[] }>('select mcp_server_ids as ids from agents where id = $1', [
        agentId,
      ])
    )[0]?.ids;

  const createServer = (who: Call, name: string): Promise<string> =>
    registerRemote(who, {
      name,
      display_name: `Remote ${name}`,
      address: upstream.url,
    });
  /**
   * An OAuth registration and a pending linking state for the server, the rows OAuth linking
   * writes (the linking flow itself is mcp-oauth.test.ts's subject).
   */
  const registerOAuth = async (serverId: string, organizationId: string) => {
    const clientRef = randomUUID();
    await query(
      `insert into mcp_oauth_clients (id, server_id, organization_id, issuer, metadata, redirect_uri,
         client_id, token_endpoint_auth_method)
       values ($1, $2, $3, 'https://as.example.test', '{}', 'https://portal.example.test/cb',
         'client-1', 'none')`,
      [clientRef, serverId, organizationId],
    );
    await query(
      `insert into mcp_oauth_states (state_hash, server_id, user_id, organization_id, client_ref,
         sealed_verifier, expires_at)
       values ($1, $2, 'someone', $3, $4, 'sealed', now() + interval '10 minutes')`,
      [randomBytes(32).toString('hex'), serverId, organizationId, clientRef],
    );
  };
  const serverPath = (t: Tenant, name: string) =>
    `/apis/${API_VERSION}/namespaces/${t.namespace}/mcpservers/${name}`;
  /** Deletes the McpServer with the kube API (as kubectl would) and waits until it is gone. */
  const kubeDelete = (t: Tenant, name: string) =>
    kubeDeleteAndWait(serverPath(t, name), `McpServer ${name}`);

  before(async function () {
    this.timeout(240_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    upstream = await startMcpTestServer({
      token: upstreamToken,
      tools: [{ name: 'search', title: 'Search', description: 'Finds documents' }],
    });
    api = await startTestApi(API_NAME, { AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true' });
    databaseUrl = api.databaseUrl;
    [a, doomed] = await provisionTenants(api.url, 'mcp-clean', 'mcp-doomed');
    for (const t of [a, doomed]) await addMembers(t.organizationId);
    ({ admin, member } = callersIn(api.url, a));
    kept = await createServer(admin, 'kept');
    await link(admin, kept, upstreamToken);
    await link(member, kept, newSecret('member-kept'));
  });

  after(async function () {
    for (const t of [a, doomed]) {
      if (!t) continue;
      // Removing a member of an organization the deleted tenant took along answers 404: fine.
      await removeMembers(t.organizationId);
    }
    await operator?.stop();
    await Promise.all([api?.close(), upstream?.close()]);
  });

  it('forgets a server deleted with the kube API: credentials, OAuth rows and agents’ references go', async function () {
    const gone = await createServer(admin, 'kubectl-gone');
    await link(member, gone, newSecret('member-gone'));
    await link(admin, gone, newSecret('admin-gone'));
    await registerOAuth(gone, a.organizationId);
    const agent = await createAgent(member, 'uses-gone', [gone, kept]);
    assert.deepEqual(await rowsOf(gone), { credentials: 2, clients: 1, states: 1 });

    await kubeDelete(a, 'kubectl-gone');

    await waitFor(
      'the records of the deleted server to go',
      async () =>
        JSON.stringify(await rowsOf(gone)) === JSON.stringify(NONE) &&
        JSON.stringify(await storedIds(agent.id)) === JSON.stringify([kept]),
      { timeoutMs: CLEANUP_WITHIN_MS },
    );
    const r = await member('GET', `/v1/agents/${agent.id}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((r.json() as Agent).mcp_server_ids, [kept]);
    assert.equal((await rowsOf(kept)).credentials, 2, 'the other server’s credentials stay');
  });

  it('forgets every server of a deleted tenant: nothing of them stays in the database', async function () {
    const adminInDoomed = caller(api?.url ?? '', 'admin', doomed.organizationId);
    const memberInDoomed = caller(api?.url ?? '', 'member', doomed.organizationId);
    const one = await createServer(adminInDoomed, 'one');
    const two = await createServer(adminInDoomed, 'two');
    await link(memberInDoomed, one, newSecret('doomed-one'));
    await link(memberInDoomed, two, newSecret('doomed-two'));
    await registerOAuth(two, doomed.organizationId);
    const agent = await createAgent(memberInDoomed, 'doomed-agent', [one, two]);

    const del = await adminCall(`${api?.url}/v1/admin/tenants/${doomed.id}`, { method: 'DELETE' });
    assert.equal(del.status, 202, del.text);
    await awaitTenantGone(api?.url ?? '', doomed.id);

    // The agent that named them goes with its tenant (tenant-cleanup.test.ts).
    await waitFor(
      'the records of the tenant’s servers, and its agent, to go',
      async () =>
        JSON.stringify([await rowsOf(one), await rowsOf(two)]) === JSON.stringify([NONE, NONE]) &&
        (await storedIds(agent.id)) === undefined,
      { timeoutMs: CLEANUP_WITHIN_MS },
    );
  });

  describe('after a restart: what went while no API ran', function () {
    let offline: string;
    let young: string;
    let offlineAgent: Agent;
    let youngAgent: Agent;

    /** The restarted API's sweep has run (the statements that keep rows ran with these). */
    const swept = () =>
      waitFor(
        'the sweep to remove the records of the server deleted while no API ran',
        async () =>
          JSON.stringify(await rowsOf(offline)) === JSON.stringify(NONE) &&
          JSON.stringify(await storedIds(offlineAgent.id)) === JSON.stringify([kept]),
        { timeoutMs: CLEANUP_WITHIN_MS },
      );

    before(async function () {
      this.timeout(120_000);
      offline = await createServer(admin, 'offline-gone');
      young = await createServer(admin, 'offline-young');
      await link(member, offline, newSecret('member-offline'));
      await link(member, young, newSecret('member-young'));
      await registerOAuth(offline, a.organizationId);
      offlineAgent = await createAgent(member, 'uses-offline', [offline, kept]);
      youngAgent = await createAgent(member, 'uses-young', [young]);
      // Ten minutes pass for some rows: those of the server about to go, the live server's
      // credentials and the first agent. The young server's rows stay seconds old.
      const past = "now() - interval '10 minutes'";
      await query(
        `update mcp_credentials set updated_at = ${past}, created_at = ${past}
         where server_id = any($1::uuid[])`,
        [[offline, kept]],
      );
      await query(`update mcp_oauth_clients set created_at = ${past} where server_id = $1`, [
        offline,
      ]);
      await query(`update mcp_oauth_states set created_at = ${past} where server_id = $1`, [
        offline,
      ]);
      await query(`update agents set updated_at = ${past} where id = $1`, [offlineAgent.id]);

      await api?.close();
      api = undefined;
      await kubeDelete(a, 'offline-gone');
      await kubeDelete(a, 'offline-young');
      assert.deepEqual(await rowsOf(offline), { credentials: 1, clients: 1, states: 1 });

      api = await startTestApi(
        `${API_NAME}-restarted`,
        { AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true' },
        { databaseOf: API_NAME, mcpOrphanGraceSeconds: CLEANUP_GRACE_SECONDS },
      );
      admin = caller(api.url, 'admin', a.organizationId);
      member = caller(api.url, 'member', a.organizationId);
    });

    it('sweeps the credentials, OAuth rows and agents’ references of a server deleted meanwhile', async function () {
      await swept();
      const r = await member('GET', `/v1/agents/${offlineAgent.id}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual((r.json() as Agent).mcp_server_ids, [kept]);
    });

    it('keeps rows younger than the grace period, even when their server is gone', async function () {
      await swept();
      assert.equal((await rowsOf(young)).credentials, 1);
      assert.deepEqual(await storedIds(youngAgent.id), [young]);
    });

    it('never sweeps a live server’s credentials, however old: they stay and still work', async function () {
      await swept();
      assert.equal((await rowsOf(kept)).credentials, 2);
      const r = await admin('GET', `/v1/mcp/servers/${kept}/available-tools`);
      assert.equal(r.status, 200, r.text);
      const tools = (r.json() as { tools: { name: string }[] }).tools.map((t) => t.name);
      assert.ok(tools.includes('search'), r.text);
      const linked = await member('GET', `/v1/mcp/servers/${kept}`);
      assert.equal((linked.json() as { linked: boolean }).linked, true, linked.text);
    });
  });
});
