import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import {
  jwtTokenVerifier,
  startMcpTestServer,
  startOAuthTestAuthorizationServer,
  type ManagedProcess,
  type McpTestServer,
  type OAuthTestAuthorizationServer,
  waitFor,
} from '@aiplane/hack';
import {
  assertCode,
  assertValidationFailed,
  call,
  keycloak,
  ORG_SCOPE,
  startTestApi,
  tokenFor,
  type Reply,
  type TestApi,
} from './api-helpers.js';
import { initializeRequest, startTestGateway, type TestGateway } from './gateway-helpers.js';
import { environment } from './harness.js';
import { kcAdmin } from './keycloak-admin.js';
import {
  addMembers,
  caller,
  callersIn,
  provisionTenants,
  removeMembers,
  type Tenant,
  type Call,
} from './fixtures/index.js';
import { randomId } from './mcp-helpers.js';
import {
  authorizeInBrowser,
  type AuthorizationReturn,
  type BrowserLogin,
} from './oauth-browser.js';
import { startOperatorProcess } from './operator-process.js';
import { newSecret, rememberSecret } from './secrets.js';

interface Started {
  authorize_url: string;
  state: string;
}

/** The portal page the upstream returns the browser to (never loaded: the browser stops there). */
const RETURN = 'http://127.0.0.1:9/portal/mcp/oauth/return';
const REGISTRATION_POLICY =
  'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

interface RegistrationPolicy {
  id: string;
  providerId: string;
  subType: string;
  config: Record<string, string[]>;
}

describe('MCP OAuth linking (API, PostgreSQL, an SDK authorization server, the local Keycloak)', function () {
  let api: TestApi;
  let unconfigured: TestApi;
  let operator: ManagedProcess;
  let db: pg.Client;
  let as: OAuthTestAuthorizationServer;
  let sdkUpstream: McpTestServer;
  let kcUpstream: McpTestServer;
  let deadAsUpstream: McpTestServer;
  let staticUpstream: McpTestServer;
  let openUpstream: McpTestServer;
  let a: Tenant;
  let b: Tenant;
  let admin: Call;
  let member: Call;
  let adminInB: Call;
  const ids: Record<string, string> = {};
  let trustedHosts: RegistrationPolicy | undefined;
  /** Every response body of the suite, checked for secrets at the end. */
  const seen: string[] = [];
  /** Every authorization code the browser brought back and every token an upstream received. */
  const issued: string[] = [];
  const record = (r: Reply): Reply => {
    seen.push(r.text);
    return r;
  };

  const start = async (who: Call, serverId: string): Promise<Started> => {
    const r = record(await who('POST', `/v1/mcp/servers/${serverId}/credential/oauth`));
    assert.equal(r.status, 200, r.text);
    return r.json() as Started;
  };
  const browse = async (started: Started, login?: BrowserLogin) => {
    const back = await authorizeInBrowser(started.authorize_url, { returnTo: RETURN, login });
    assert.equal(back.state, started.state, 'the state comes back unchanged');
    rememberSecret(back.code);
    issued.push(back.code);
    return back;
  };
  const callback = async (who: Call, body: unknown) =>
    record(await who('POST', '/v1/mcp/credential/oauth/callback', body));
  /** What the portal posts from the return address: state, code, and iss when there is one. */
  const returned = (back: AuthorizationReturn) => {
    const iss = back.url.searchParams.get('iss');
    return { state: back.state, code: back.code, ...(iss === null ? {} : { iss }) };
  };
  /** Starts, logs in as a browser would, and posts the callback: the full linking. */
  const link = async (who: Call, serverId: string, login?: BrowserLogin) => {
    const started = await start(who, serverId);
    const back = await browse(started, login);
    const r = await callback(who, returned(back));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json(), { server_id: serverId });
  };
  const tools = async (who: Call, serverId: string) =>
    record(await who('GET', `/v1/mcp/servers/${serverId}/available-tools`));
  /** Lists tools and answers the bearer token the upstream received for it. */
  const toolsWithToken = async (upstream: McpTestServer, serverId: string) => {
    const mark = upstream.seenAuthorization.length;
    const r = await tools(admin, serverId);
    assert.equal(r.status, 200, r.text);
    const sent = (upstream.seenAuthorization[mark] ?? '').replace(/^Bearer /, '');
    rememberSecret(sent);
    issued.push(sent);
    return { reply: r, token: sent };
  };
  const createRemote = async (who: Call, name: string, address: string) => {
    const r = record(
      await who('POST', '/v1/mcp/servers', {
        runtime: 'remote',
        name,
        display_name: name,
        address,
      }),
    );
    assert.equal(r.status, 200, r.text);
    return (r.json() as { id: string }).id;
  };
  /** The admin's headers with one token, for requests that must arrive together. */
  const adminHeaders = async () => ({
    authorization: `Bearer ${await tokenFor('admin', ORG_SCOPE)}`,
    'x-aiplane-organization': a.organizationId,
  });
  const login = (user: 'admin' | 'member'): BrowserLogin => ({
    username: keycloak().users[user].username,
    password: keycloak().users[user].password,
  });

  before(async function () {
    this.timeout(240_000);
    // First: the operator starts while the rest is set up (it makes the tenants Ready).
    operator = startOperatorProcess();
    const kc = keycloak();
    as = await startOAuthTestAuthorizationServer();
    [sdkUpstream, kcUpstream, deadAsUpstream, staticUpstream, openUpstream] = await Promise.all([
      startMcpTestServer({
        oauth: { authorizationServer: as.issuer, verifier: as.verifier },
        tools: [{ name: 'search', title: 'Search' }],
      }),
      startMcpTestServer({
        oauth: {
          authorizationServer: kc.issuer,
          verifier: jwtTokenVerifier({ issuer: kc.issuer, jwksUri: kc.jwksUri }),
        },
        tools: [{ name: 'tickets' }],
      }),
      // Names an authorization server where nothing listens.
      startMcpTestServer({
        oauth: { authorizationServer: 'http://127.0.0.1:9/', verifier: as.verifier },
      }),
      startMcpTestServer({ token: newSecret('static-upstream') }),
      startMcpTestServer(),
    ]);
    // The realm's anonymous registration policy trusts no host by default; trust loopback,
    // where the API registers from and where the return address is.
    const policies = (await (
      await kcAdmin(`/components?type=${REGISTRATION_POLICY}`)
    ).json()) as RegistrationPolicy[];
    trustedHosts = policies.find(
      (p) => p.providerId === 'trusted-hosts' && p.subType === 'anonymous',
    );
    assert.ok(trustedHosts, 'the realm has an anonymous trusted-hosts policy');
    const put = await kcAdmin(`/components/${trustedHosts.id}`, {
      method: 'PUT',
      body: { ...trustedHosts, config: { ...trustedHosts.config, 'trusted-hosts': ['127.0.0.1'] } },
    });
    assert.ok(put.ok, `trusted hosts: ${put.status}`);

    [api, unconfigured] = await Promise.all([
      startTestApi('api-mcp-oauth', {
        AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true',
        AIPLANE_MCP_OAUTH_REDIRECT_URL: RETURN,
        AIPLANE_MCP_UPSTREAM_TIMEOUT_MS: '5000',
      }),
      startTestApi('api-mcp-oauth-unconfigured', { AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true' }),
    ]);
    db = new pg.Client({ connectionString: api.databaseUrl });
    await db.connect();
    [a, b] = await provisionTenants(api.url, 'oauth-a', 'oauth-b');
    await addMembers(a.organizationId);
    ({ admin, member } = callersIn(api.url, a));
    adminInB = caller(api.url, 'admin', b.organizationId);
    ids.sdk = await createRemote(admin, 'sdk', sdkUpstream.url);
    ids.keycloak = await createRemote(admin, 'keycloak', kcUpstream.url);
    ids.deadAs = await createRemote(admin, 'dead-as', deadAsUpstream.url);
    ids.static = await createRemote(admin, 'static', staticUpstream.url);
    ids.open = await createRemote(admin, 'open', openUpstream.url);
    ids.foreign = await createRemote(adminInB, 'foreign', sdkUpstream.url);
  });

  after(async function () {
    if (trustedHosts) {
      await kcAdmin(`/components/${trustedHosts.id}`, { method: 'PUT', body: trustedHosts });
    }
    if (a) await removeMembers(a.organizationId);
    await operator?.stop();
    await db?.end();
    await Promise.all([
      api?.close(),
      unconfigured?.close(),
      as?.close(),
      sdkUpstream?.close(),
      kcUpstream?.close(),
      deadAsUpstream?.close(),
      staticUpstream?.close(),
      openUpstream?.close(),
    ]);
  });

  describe('starting', function () {
    let first: Started;

    it('answers authorize_url and state: PKCE S256, the resource, our return address and a registered client', async function () {
      first = await start(admin, ids.sdk ?? '');
      assert.match(first.state, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
      const url = new URL(first.authorize_url);
      assert.equal(`${url.origin}${url.pathname}`, new URL('/authorize', as.issuer).href);
      const q = url.searchParams;
      assert.equal(q.get('response_type'), 'code');
      assert.equal(q.get('code_challenge_method'), 'S256');
      assert.match(q.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.equal(q.get('redirect_uri'), RETURN);
      assert.equal(q.get('state'), first.state);
      assert.equal(q.get('resource'), sdkUpstream.url);
      assert.equal(as.requests.registrations.length, 1);
      assert.equal(q.get('client_id'), as.requests.registrations[0]?.client_id);
      assert.deepEqual(as.requests.registrations[0]?.redirect_uris, [RETURN]);
    });

    it('registers one client per server and authorization server, shared by every user', async function () {
      const second = await start(member, ids.sdk ?? '');
      assert.equal(
        new URL(second.authorize_url).searchParams.get('client_id'),
        new URL(first.authorize_url).searchParams.get('client_id'),
      );
      assert.equal(as.requests.registrations.length, 1, 'no second registration');
      const rows = await db.query<{ client_id: string; sealed_secret: string }>(
        'select client_id, sealed_secret from mcp_oauth_clients where server_id = $1',
        [ids.sdk],
      );
      assert.equal(rows.rowCount, 1);
      const clientSecret = as.requests.registrations[0]?.client_secret ?? '';
      assert.ok(clientSecret.length > 0);
      assert.match(rows.rows[0]?.sealed_secret ?? '', /^v1\./, 'the client secret is sealed');
      assert.ok(!(rows.rows[0]?.sealed_secret ?? '').includes(clientSecret));
    });

    it('stores only the SHA-256 of the state, for ten minutes, with the PKCE verifier sealed', async function () {
      const rows = await db.query<{
        state_hash: string;
        user_id: string;
        sealed_verifier: string;
        ttl: number;
      }>(
        `select state_hash, user_id, sealed_verifier,
                extract(epoch from expires_at - created_at)::int as ttl
           from mcp_oauth_states where state_hash = $1`,
        [sha256(first.state)],
      );
      assert.equal(rows.rowCount, 1);
      assert.equal(rows.rows[0]?.user_id, keycloak().users.admin.id);
      assert.equal(rows.rows[0]?.ttl, 600);
      assert.match(rows.rows[0]?.sealed_verifier ?? '', /^v1\./);
      const plain = await db.query('select 1 from mcp_oauth_states where state_hash = $1', [
        first.state,
      ]);
      assert.equal(plain.rowCount, 0, 'the state itself is stored nowhere');
    });

    it('answers 400 mcp_server_does_not_use_oauth for a server that takes a static token, or none', async function () {
      for (const id of [ids.static, ids.open]) {
        assertCode(
          record(await admin('POST', `/v1/mcp/servers/${id}/credential/oauth`)),
          400,
          'mcp_server_does_not_use_oauth',
        );
      }
      assert.equal(openUpstream.openSessions(), 0, 'a session the probe opened was ended');
    });

    it('answers 503 mcp_oauth_not_configured when the deployment publishes no return address', async function () {
      const r = record(
        await caller(
          unconfigured.url,
          'admin',
          a.organizationId,
        )('POST', `/v1/mcp/servers/${ids.sdk}/credential/oauth`),
      );
      assertCode(r, 503, 'mcp_oauth_not_configured');
    });

    it('answers 403 mcp_server_access_denied with one body for a missing, a foreign and a malformed id', async function () {
      const bodies = new Set<string>();
      for (const id of [randomId(), ids.foreign, 'not-a-uuid']) {
        const r = record(await member('POST', `/v1/mcp/servers/${id}/credential/oauth`));
        assertCode(r, 403, 'mcp_server_access_denied');
        bodies.add(r.text);
      }
      assert.equal(bodies.size, 1, [...bodies].join('\n'));
    });

    it('answers 503 mcp_oauth_upstream_error when the authorization server cannot be reached', async function () {
      const r = record(await admin('POST', `/v1/mcp/servers/${ids.deadAs}/credential/oauth`));
      assertCode(r, 503, 'mcp_oauth_upstream_error');
    });

    it('answers 503 mcp_server_not_ready for a managed server that is not serving', async function () {
      const r = record(
        await admin('POST', '/v1/mcp/servers', {
          runtime: 'managed',
          name: 'managed',
          display_name: 'Managed',
          image: 'ghcr.io/acme/files-mcp:1.2.3',
          port: 8080,
        }),
      );
      assert.equal(r.status, 200, r.text);
      const id = (r.json() as { id: string }).id;
      assertCode(
        record(await member('POST', `/v1/mcp/servers/${id}/credential/oauth`)),
        503,
        'mcp_server_not_ready',
      );
    });
  });

  describe('completing', function () {
    let used: { state: string; code: string };

    it('links the credential: the code is exchanged with the resource, and the server shows linked', async function () {
      const before = as.requests.tokenResources.length;
      const started = await start(admin, ids.sdk ?? '');
      const back = await browse(started);
      used = { state: started.state, code: back.code };
      const r = await callback(admin, used);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json(), { server_id: ids.sdk });
      assert.deepEqual(as.requests.tokenResources.slice(before), [sdkUpstream.url]);
      assert.ok(
        as.requests.challengeMethods.length > 0,
        'the authorization server saw a challenge',
      );
      assert.ok(as.requests.challengeMethods.every((m) => m === 'S256'));
      const server = record(await admin('GET', `/v1/mcp/servers/${ids.sdk}`));
      assert.equal((server.json() as { linked: boolean }).linked, true);
      const row = await db.query<{ kind: string }>(
        'select kind from mcp_credentials where server_id = $1 and user_id = $2',
        [ids.sdk, keycloak().users.admin.id],
      );
      assert.equal(row.rows[0]?.kind, 'oauth');
    });

    it('lists tools with the linked token, and does not renew a token far from expiry', async function () {
      const refreshes = as.requests.refreshResources.length;
      const first = await toolsWithToken(sdkUpstream, ids.sdk ?? '');
      const names = (first.reply.json() as { tools: { name: string }[] }).tools.map((t) => t.name);
      assert.ok(names.includes('search'), names.join());
      const second = await toolsWithToken(sdkUpstream, ids.sdk ?? '');
      assert.ok(as.secrets().includes(first.token), 'an access token the server issued');
      assert.equal(second.token, first.token, 'the same access token both times');
      assert.equal(as.requests.refreshResources.length, refreshes, 'no refresh');
    });

    it('answers 400 mcp_oauth_state_invalid for a state used before', async function () {
      assertCode(await callback(admin, used), 400, 'mcp_oauth_state_invalid');
    });

    it('answers 400 mcp_oauth_state_invalid for an unknown state', async function () {
      assertCode(
        await callback(admin, { state: randomBytes(32).toString('base64url'), code: 'x' }),
        400,
        'mcp_oauth_state_invalid',
      );
    });

    it('answers 400 mcp_oauth_state_invalid for an expired state', async function () {
      const started = await start(admin, ids.sdk ?? '');
      const back = await browse(started);
      await db.query(
        `update mcp_oauth_states set expires_at = now() - interval '1 second' where state_hash = $1`,
        [sha256(started.state)],
      );
      assertCode(
        await callback(admin, { state: started.state, code: back.code }),
        400,
        'mcp_oauth_state_invalid',
      );
    });

    it('answers 400 mcp_oauth_state_invalid for another user’s state and leaves it to its owner', async function () {
      const started = await start(member, ids.sdk ?? '');
      const back = await browse(started);
      const body = { state: started.state, code: back.code };
      assertCode(await callback(admin, body), 400, 'mcp_oauth_state_invalid');
      const own = await callback(member, body);
      assert.equal(own.status, 200, own.text);
    });

    it('answers 400 mcp_oauth_state_invalid for the same user’s state in another organization and leaves it to its own', async function () {
      const started = await start(admin, ids.sdk ?? '');
      const back = await browse(started);
      const body = { state: started.state, code: back.code };
      const exchanges = as.requests.tokenResources.length;
      assertCode(await callback(adminInB, body), 400, 'mcp_oauth_state_invalid');
      assert.equal(as.requests.tokenResources.length, exchanges, 'the code was not exchanged');
      const own = await callback(admin, body);
      assert.equal(own.status, 200, own.text);
      assert.deepEqual(own.json(), { server_id: ids.sdk });
    });

    it('answers 422 for a callback body of the wrong shape', async function () {
      assertValidationFailed(await callback(admin, { state: 'abc' }), 'code');
      assertValidationFailed(await callback(admin, { state: 1, code: 'x' }), 'state');
      assertValidationFailed(await callback(admin, { state: 'a', code: 'b', extra: 1 }), 'extra');
    });

    it('accepts exactly one of 50 concurrent callbacks with one state', async function () {
      const started = await start(admin, ids.sdk ?? '');
      const back = await browse(started);
      const exchanges = as.requests.tokenResources.length;
      const body = { state: started.state, code: back.code };
      // One token for all 50, so the posts arrive together.
      const headers = await adminHeaders();
      const replies = await Promise.all(
        Array.from({ length: 50 }, async () =>
          record(
            await call(`${api.url}/v1/mcp/credential/oauth/callback`, {
              method: 'POST',
              headers,
              body,
            }),
          ),
        ),
      );
      const ok = replies.filter((r) => r.status === 200);
      assert.equal(ok.length, 1, replies.map((r) => r.status).join(' '));
      for (const r of replies.filter((x) => x.status !== 200)) {
        assertCode(r, 400, 'mcp_oauth_state_invalid');
      }
      assert.equal(as.requests.tokenResources.length, exchanges + 1, 'the code was exchanged once');
    });
  });

  describe('renewal', function () {
    after(function () {
      as.setAccessTokenTtl(3600);
    });

    it('renews a token that expires within 30 s with the refresh token and the resource', async function () {
      as.setAccessTokenTtl(20);
      await link(admin, ids.sdk ?? '');
      const refreshes = as.requests.refreshResources.length;
      const first = await toolsWithToken(sdkUpstream, ids.sdk ?? '');
      const second = await toolsWithToken(sdkUpstream, ids.sdk ?? '');
      assert.deepEqual(as.requests.refreshResources.slice(refreshes), [
        sdkUpstream.url,
        sdkUpstream.url,
      ]);
      assert.notEqual(first.token, second.token, 'each call used a renewed token');
      assert.ok(as.secrets().includes(second.token));
    });

    it('renews once for concurrent requests, which then share the new token (refresh tokens rotate)', async function () {
      as.setAccessTokenTtl(20);
      await link(admin, ids.sdk ?? '');
      as.setAccessTokenTtl(3600);
      const refreshes = as.requests.refreshResources.length;
      const mark = sdkUpstream.seenAuthorization.length;
      // One token for all, so the requests arrive together.
      const headers = await adminHeaders();
      const replies = await Promise.all(
        Array.from({ length: 20 }, async () =>
          record(await call(`${api.url}/v1/mcp/servers/${ids.sdk}/available-tools`, { headers })),
        ),
      );
      assert.deepEqual(
        replies.map((r) => r.status),
        replies.map(() => 200),
      );
      assert.equal(as.requests.refreshResources.length, refreshes + 1, 'one refresh');
      const sent = new Set(sdkUpstream.seenAuthorization.slice(mark));
      assert.equal(sent.size, 1, 'every request sent the renewed token');
    });

    it('answers 403 mcp_credential_expired when the refresh token was revoked', async function () {
      as.setAccessTokenTtl(20);
      await link(admin, ids.sdk ?? '');
      as.revokeRefreshTokens();
      assertCode(await tools(admin, ids.sdk ?? ''), 403, 'mcp_credential_expired');
    });
  });

  describe('through the gateway', function () {
    let gateway: TestGateway;
    const memberToken = () => tokenFor('member', ORG_SCOPE);
    const mcpCall = async (serverId: string) => {
      const client = new Client({ name: 'it-oauth-gateway', version: '1' });
      const transport = new StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${gateway.port}/servers/${serverId}/mcp`),
        { requestInit: { headers: { authorization: `Bearer ${await memberToken()}` } } },
      );
      await client.connect(transport);
      try {
        return await client.callTool({ name: 'echo', arguments: { text: 'via oauth' } });
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    };
    before(async function () {
      gateway = await startTestGateway(api, 'gateway-oauth', {
        AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true',
      });
      ids.gateway = await createRemote(admin, 'sdk-gateway', sdkUpstream.url);
    });
    after(async function () {
      as.setAccessTokenTtl(3600);
      await gateway?.close();
    });

    it('calls a tool through the gateway with the OAuth token linked by the browser flow, renewed when it expires', async function () {
      as.setAccessTokenTtl(20);
      await link(member, ids.gateway ?? '');
      const refreshes = as.requests.refreshResources.length;
      const mark = sdkUpstream.seenAuthorization.length;
      const result = await mcpCall(ids.gateway ?? '');
      assert.deepEqual(result.content, [{ type: 'text', text: 'via oauth' }]);
      assert.ok(as.requests.refreshResources.length > refreshes, 'the expiring token was renewed');
      const sent = sdkUpstream.seenAuthorization.slice(mark).map((h) => h.replace(/^Bearer /, ''));
      assert.ok(sent.length > 0, 'the call reached the upstream');
      for (const t of sent) {
        rememberSecret(t);
        assert.ok(as.secrets().includes(t), 'a token the authorization server issued');
      }
    });

    it('answers -32005 mcp_credential_expired with the Bearer challenge once the refresh token is revoked', async function () {
      as.setAccessTokenTtl(20);
      await link(member, ids.gateway ?? '');
      as.revokeRefreshTokens();
      const r = await call(`http://127.0.0.1:${gateway.port}/servers/${ids.gateway}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await memberToken()}`,
          accept: 'application/json, text/event-stream',
        },
        body: initializeRequest(),
      });
      record(r);
      assert.equal(r.status, 403, r.text);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer error="mcp_credential_expired"');
      const body = r.json() as { id: number; error: { code: number; data: { code: string } } };
      assert.deepEqual(
        [body.id, body.error.code, body.error.data.code],
        [1, -32005, 'mcp_credential_expired'],
      );
    });
  });

  describe('renewal against a slow authorization server (no database connection held)', function () {
    let slowAs: OAuthTestAuthorizationServer;
    let slowUpstream: McpTestServer;
    let gateway: TestGateway;
    let replica: TestGateway;
    /** Twelve servers: more credentials renewing at once than the pool has connections (10). */
    const slow: string[] = [];
    const initialize = async (
      via: TestGateway,
      serverId: string,
      who: 'admin' | 'member',
      token?: string,
    ) =>
      record(
        await call(`${via.url}/servers/${serverId}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token ?? (await tokenFor(who, ORG_SCOPE))}`,
            accept: 'application/json, text/event-stream',
          },
          body: initializeRequest(),
        }),
      );
    /**
     * Refresh requests the slow server received since `mark`, and how many of them are over
     * (answered, or given up by the client: a refresh times out after 10 s).
     */
    const refreshesSince = (mark: number) => {
      const received = slowAs.requests.refreshResources.length - mark;
      return { received, over: received - slowAs.pendingRefreshes() };
    };

    before(async function () {
      this.timeout(120_000);
      slowAs = await startOAuthTestAuthorizationServer();
      slowUpstream = await startMcpTestServer({
        oauth: { authorizationServer: slowAs.issuer, verifier: slowAs.verifier },
      });
      [gateway, replica] = await Promise.all([
        startTestGateway(api, 'gateway-oauth-slow', {
          AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true',
        }),
        startTestGateway(api, 'gateway-oauth-slow-replica', {
          AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true',
        }),
      ]);
      for (let i = 0; i < 12; i += 1)
        slow.push(await createRemote(admin, `slow-${i}`, slowUpstream.url));
    });
    after(async function () {
      slowAs?.releaseRefreshes();
      for (const s of slowAs?.secrets() ?? []) issued.push(s);
      await Promise.all([gateway?.close(), replica?.close()]);
      await Promise.all([slowAs?.close(), slowUpstream?.close()]);
    });

    it('serves 30 requests with other users’ credentials while 12 refreshes wait on the authorization server', async function () {
      this.timeout(120_000);
      // The member's credential is fresh; the admin's twelve expire within the renewal margin.
      slowAs.setAccessTokenTtl(3600);
      await link(member, slow[0] ?? '');
      slowAs.setAccessTokenTtl(20);
      for (const id of slow) await link(admin, id);
      const mark = slowAs.requests.refreshResources.length;
      // Answered when the test releases them (below), or after 20 s at the latest.
      slowAs.holdRefreshes(20_000);
      const adminToken = await tokenFor('admin', ORG_SCOPE);
      const renewing = slow.map((id) => initialize(gateway, id, 'admin', adminToken));
      try {
        // At least the pool's worth of refreshes are waiting at the authorization server.
        await waitFor(
          '10 refreshes held at the authorization server',
          () => Promise.resolve(slowAs.pendingRefreshes() >= 10),
          { timeoutMs: 15_000, intervalMs: 50 },
        );
        const memberToken = await tokenFor('member', ORG_SCOPE);
        const others = await Promise.all(
          Array.from({ length: 30 }, () =>
            initialize(gateway, slow[0] ?? '', 'member', memberToken),
          ),
        );
        // Every one answered while every refresh was still waiting for its answer: a renewal
        // waiting on the authorization server holds no pool connection.
        const during = refreshesSince(mark);
        assert.deepEqual(
          others.map((r) => r.status),
          others.map(() => 200),
          others.find((r) => r.status !== 200)?.text,
        );
        assert.equal(during.over, 0, 'the 30 requests finished while every refresh still waited');
      } finally {
        slowAs.releaseRefreshes();
      }
      const renewed = await Promise.all(renewing);
      assert.deepEqual(
        renewed.map((r) => r.status),
        renewed.map(() => 200),
        renewed.find((r) => r.status !== 200)?.text,
      );
      assert.equal(refreshesSince(mark).received, 12, 'one refresh per credential');
    });

    it('sends one refresh for 20 concurrent requests with one expired credential, through two gateway replicas', async function () {
      this.timeout(60_000);
      slowAs.setAccessTokenTtl(20);
      await link(admin, slow[1] ?? '');
      slowAs.setAccessTokenTtl(3600);
      const mark = slowAs.requests.refreshResources.length;
      const upstreamMark = slowUpstream.seenAuthorization.length;
      // The token endpoint answers after 5 s: every request arrives while the refresh runs.
      slowAs.holdRefreshes(5_000);
      const token = await tokenFor('admin', ORG_SCOPE);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          initialize(i % 2 === 0 ? gateway : replica, slow[1] ?? '', 'admin', token),
        ),
      );
      assert.deepEqual(
        replies.map((r) => r.status),
        replies.map(() => 200),
        replies.find((r) => r.status !== 200)?.text,
      );
      assert.equal(refreshesSince(mark).received, 1, 'exactly one refresh request');
      const sent = new Set(slowUpstream.seenAuthorization.slice(upstreamMark));
      assert.equal(sent.size, 1, 'every request sent the one renewed token');
    });

    it('keeps the refresh token when a refresh answer carries none, and renews with it again', async function () {
      slowAs.setRefreshRotation(false);
      try {
        slowAs.setAccessTokenTtl(20);
        await link(admin, slow[2] ?? '');
        const mark = slowAs.requests.refreshResources.length;
        const upstreamMark = slowUpstream.seenAuthorization.length;
        for (let i = 0; i < 2; i += 1) {
          const r = await initialize(gateway, slow[2] ?? '', 'admin');
          assert.equal(r.status, 200, r.text);
        }
        assert.equal(refreshesSince(mark).received, 2, 'each request renewed its token');
        const sent = new Set(slowUpstream.seenAuthorization.slice(upstreamMark));
        assert.equal(sent.size, 2, 'two renewed access tokens');
      } finally {
        slowAs.setRefreshRotation(true);
        slowAs.setAccessTokenTtl(3600);
      }
    });
  });

  describe('mix-up defence (RFC 8414 §3.3, RFC 9207)', function () {
    let impostorAs: OAuthTestAuthorizationServer;
    let issAs: OAuthTestAuthorizationServer;
    let impostorUpstream: McpTestServer;
    let issUpstream: McpTestServer;

    before(async function () {
      // Serves metadata that claims to be the first authorization server.
      impostorAs = await startOAuthTestAuthorizationServer({ metadata: { issuer: as.issuer } });
      // Advertises authorization_response_iss_parameter_supported and sends iss.
      issAs = await startOAuthTestAuthorizationServer({ issParameter: true });
      [impostorUpstream, issUpstream] = await Promise.all([
        startMcpTestServer({
          oauth: { authorizationServer: impostorAs.issuer, verifier: impostorAs.verifier },
        }),
        startMcpTestServer({
          oauth: { authorizationServer: issAs.issuer, verifier: issAs.verifier },
        }),
      ]);
      ids.impostor = await createRemote(admin, 'impostor', impostorUpstream.url);
      ids.iss = await createRemote(admin, 'iss', issUpstream.url);
    });
    after(async function () {
      for (const s of [...(issAs?.secrets() ?? []), ...(impostorAs?.secrets() ?? [])])
        issued.push(s);
      await Promise.all([
        impostorAs?.close(),
        issAs?.close(),
        impostorUpstream?.close(),
        issUpstream?.close(),
      ]);
    });

    it('answers 503 mcp_oauth_upstream_error when an authorization server’s metadata names another issuer', async function () {
      const r = record(await admin('POST', `/v1/mcp/servers/${ids.impostor}/credential/oauth`));
      assertCode(r, 503, 'mcp_oauth_upstream_error');
      assert.match((r.json() as { error: { message: string } }).error.message, /another issuer/);
      assert.equal(impostorAs.requests.registrations.length, 0, 'no client registered there');
    });

    it('answers 400 mcp_oauth_state_invalid when the callback carries another authorization server’s iss, and sends the code nowhere', async function () {
      const started = await start(admin, ids.sdk ?? '');
      const back = await browse(started);
      const exchanges = as.requests.tokenResources.length;
      const r = await callback(admin, { ...returned(back), iss: issAs.issuer });
      assertCode(r, 400, 'mcp_oauth_state_invalid');
      assert.equal(as.requests.tokenResources.length, exchanges, 'the code was not exchanged');
      assert.equal(issAs.requests.tokenResources.length, 0);
      // The state is spent, as for any failed callback.
      assertCode(await callback(admin, returned(back)), 400, 'mcp_oauth_state_invalid');
    });

    it('answers 400 mcp_oauth_state_invalid without iss from a server that advertises it, and links with its own iss', async function () {
      const started = await start(admin, ids.iss ?? '');
      const back = await browse(started);
      assert.equal(back.url.searchParams.get('iss'), issAs.issuer);
      assertCode(
        await callback(admin, { state: back.state, code: back.code }),
        400,
        'mcp_oauth_state_invalid',
      );
      assert.equal(issAs.requests.tokenResources.length, 0, 'the code was not exchanged');
      const again = await browse(await start(admin, ids.iss ?? ''));
      const r = await callback(admin, returned(again));
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json(), { server_id: ids.iss });
    });

    it('binds the state to the issuer linking started with', async function () {
      const started = await start(admin, ids.iss ?? '');
      const rows = await db.query<{ issuer: string; iss_required: boolean }>(
        'select issuer, iss_required from mcp_oauth_states where state_hash = $1',
        [sha256(started.state)],
      );
      assert.deepEqual(rows.rows, [{ issuer: issAs.issuer, iss_required: true }]);
    });
  });

  describe('with the local Keycloak as authorization server', function () {
    it('links through anonymous dynamic registration, the login and the consent pages', async function () {
      const started = await start(admin, ids.keycloak ?? '');
      const url = new URL(started.authorize_url);
      assert.equal(
        `${url.origin}${url.pathname}`,
        `${keycloak().issuer}/protocol/openid-connect/auth`,
      );
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      const back = await browse(started, login('admin'));
      assert.equal(back.url.searchParams.get('iss'), keycloak().issuer, 'Keycloak sends iss');
      const r = await callback(admin, returned(back));
      assert.equal(r.status, 200, r.text);
      const listed = await toolsWithToken(kcUpstream, ids.keycloak ?? '');
      const names = (listed.reply.json() as { tools: { name: string }[] }).tools.map((t) => t.name);
      assert.ok(names.includes('tickets'), names.join());
      assert.match(listed.token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a Keycloak JWT reached the upstream');
    });

    it('renews a short-lived Keycloak token, and answers 403 mcp_credential_expired once Keycloak ended the session', async function () {
      const row = await db.query<{ client_id: string }>(
        'select client_id from mcp_oauth_clients where server_id = $1',
        [ids.keycloak],
      );
      assert.equal(row.rowCount, 1);
      const clientId = row.rows[0]?.client_id ?? '';
      const [client] = (await (
        await kcAdmin(`/clients?clientId=${encodeURIComponent(clientId)}`)
      ).json()) as ({ id: string; attributes?: Record<string, string> } & Record<
        string,
        unknown
      >)[];
      assert.ok(client, 'the registered client exists in Keycloak');
      const secretReply = (await (await kcAdmin(`/clients/${client.id}/client-secret`)).json()) as {
        value: string;
      };
      rememberSecret(secretReply.value);
      issued.push(secretReply.value);
      const put = await kcAdmin(`/clients/${client.id}`, {
        method: 'PUT',
        body: { ...client, attributes: { ...client.attributes, 'access.token.lifespan': '20' } },
      });
      assert.ok(put.ok, `client lifespan: ${put.status}`);
      await link(admin, ids.keycloak ?? '', login('admin'));
      const first = await toolsWithToken(kcUpstream, ids.keycloak ?? '');
      const second = await toolsWithToken(kcUpstream, ids.keycloak ?? '');
      assert.notEqual(first.token, second.token, 'the token was renewed between the calls');
      const logout = await kcAdmin(`/users/${keycloak().users.admin.id}/logout`, {
        method: 'POST',
      });
      assert.ok(logout.ok, `logout: ${logout.status}`);
      assertCode(await tools(admin, ids.keycloak ?? ''), 403, 'mcp_credential_expired');
    });
  });

  describe('secrets', function () {
    it('never answers or logs a token, code, verifier or client secret', function () {
      const secrets = [...as.secrets(), ...issued].filter((x) => x.length >= 8);
      secrets.forEach(rememberSecret);
      assert.ok(secrets.length > 20, `only ${secrets.length} secrets were recorded`);
      for (const text of seen) {
        for (const s of secrets)
          assert.ok(!text.includes(s), `a response carries ${s.slice(0, 4)}…`);
      }
      const log = readFileSync(
        join(environment().controlPlane.logDir, 'api-mcp-oauth.log'),
        'utf8',
      );
      assert.ok(
        log.includes('OAuth linking with an upstream MCP server failed'),
        'the log was read',
      );
      for (const s of secrets) assert.ok(!log.includes(s), `the API log carries ${s.slice(0, 4)}…`);
    });

    it('removes the server’s registrations, states and credentials with the server', async function () {
      await start(admin, ids.sdk ?? '');
      const r = record(await admin('DELETE', `/v1/mcp/servers/${ids.sdk}`));
      assert.equal(r.status, 204);
      for (const table of ['mcp_oauth_clients', 'mcp_oauth_states', 'mcp_credentials']) {
        const rows = await db.query(`select 1 from ${table} where server_id = $1`, [ids.sdk]);
        assert.equal(rows.rowCount, 0, table);
      }
    });
  });
});
