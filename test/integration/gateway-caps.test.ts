import assert from 'node:assert/strict';
import { startMcpTestServer, waitFor, type McpTestServer } from '@aiplane/hack';
import { ORG_SCOPE, tokenFor } from './api-helpers.js';
import { startGatewayStack, type GatewayStack } from './fixtures/index.js';
import { initializeRequest, type RpcError } from './gateway-helpers.js';
import { link, randomId, registerRemote } from './mcp-helpers.js';
import { rememberSecret } from './secrets.js';

type User = 'member' | 'admin';

describe('MCP gateway caps (per user, per organization; real gateway, SDK server, Keycloak)', function () {
  let stack: GatewayStack | undefined;
  let upstream: McpTestServer;
  let endpoint: string;
  const credential = `caps-upstream-${randomId()}`;
  rememberSecret(credential);
  const tokens = new Map<User, string>();
  /** Streams a test opened: aborted (the client goes away) when it ends. */
  const open: AbortController[] = [];

  const headers = async (user: User, session?: string): Promise<Record<string, string>> => {
    let token = tokens.get(user);
    if (token === undefined) tokens.set(user, (token = await tokenFor(user, ORG_SCOPE)));
    return {
      authorization: `Bearer ${token}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
    };
  };

  /** A POST whose answer is read to its end. */
  const post = async (user: User, body: unknown, session?: string) => {
    const r = await fetch(endpoint, {
      method: 'POST',
      headers: await headers(user, session),
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: r.status, headers: r.headers, text: await r.text() };
  };

  const initialize = async (user: User): Promise<string> => {
    const r = await post(user, initializeRequest());
    assert.equal(r.status, 200, r.text);
    const session = r.headers.get('mcp-session-id');
    assert.ok(session, 'the gateway gives a session id');
    return session;
  };

  const ping = (user: User, session: string, id = 7) =>
    post(user, { jsonrpc: '2.0', id, method: 'ping' }, session);

  /** The server stream of a session (GET), left open: its headers only are awaited. */
  const openStream = async (user: User, session: string) => {
    const controller = new AbortController();
    open.push(controller);
    const r = await fetch(endpoint, {
      method: 'GET',
      headers: { ...(await headers(user, session)), accept: 'text/event-stream' },
      signal: controller.signal,
    });
    return { status: r.status, close: () => controller.abort() };
  };

  const end = async (user: User, session: string) => {
    const r = await fetch(endpoint, { method: 'DELETE', headers: await headers(user, session) });
    await r.text();
    return r.status;
  };

  /** Ends a session, retrying while the slots of aborted streams are still being given back. */
  const endSurely = (user: User, session: string) =>
    waitFor(`the session to end`, async () => [200, 404].includes(await end(user, session)));

  const assertLimited = (r: { status: number; headers: Headers; text: string }, id: unknown) => {
    assert.equal(r.status, 429, r.text);
    assert.match(r.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    const body = JSON.parse(r.text) as RpcError;
    assert.deepEqual(
      [body.id, body.error.code, body.error.data?.code],
      [id, -32029, 'mcp_gateway_limit_reached'],
    );
  };

  before(async function () {
    this.timeout(240_000);
    upstream = await startMcpTestServer({
      token: credential,
      tools: [{ name: 'search', title: 'Search', description: 'Finds documents' }],
    });
    stack = await startGatewayStack('gateway-caps', 'gwcap', {
      AIPLANE_GATEWAY_MAX_REQUESTS_PER_USER: '2',
      AIPLANE_GATEWAY_MAX_SESSIONS_PER_USER: '3',
    });
    const { admin, member, gateway } = stack;
    const serverId = await registerRemote(admin, {
      name: 'docs',
      display_name: 'Docs',
      address: upstream.url,
    });
    await link(member, serverId, credential);
    await link(admin, serverId, credential);
    endpoint = `${gateway.url}/servers/${serverId}/mcp`;
    // The gateway knows the server once an initialize passes (its cache may lag the API).
    await waitFor('the gateway to serve the new server', async () => {
      const s = await post('admin', initializeRequest());
      const session = s.headers.get('mcp-session-id');
      if (session !== null) await end('admin', session);
      return s.status === 200;
    });
  });

  afterEach(function () {
    for (const c of open.splice(0)) c.abort();
  });

  after(async function () {
    await stack?.close();
    await upstream?.close();
  });

  it('answers a third concurrent stream of a user 429 -32029 with Retry-After, serves another user meanwhile, and admits a new one once a stream ends', async function () {
    // Each initialize ends before the next: a finished answer gives its slot back.
    const sessions = [await initialize('member'), await initialize('member')];
    try {
      const first = await openStream('member', sessions[0]!);
      const second = await openStream('member', sessions[1]!);
      assert.deepEqual([first.status, second.status], [200, 200]);

      assertLimited(await ping('member', sessions[0]!, 41), 41);
      const third = await fetch(endpoint, {
        method: 'GET',
        headers: { ...(await headers('member', sessions[1])), accept: 'text/event-stream' },
      });
      assertLimited(
        { status: third.status, headers: third.headers, text: await third.text() },
        null,
      );

      // Another user is not held by the member's streams.
      const other = await initialize('admin');
      assert.equal((await ping('admin', other)).status, 200);
      assert.equal(await end('admin', other), 200);

      // The client goes away: its slot is free again (released on the response's close).
      first.close();
      await waitFor('a new request of the member to be admitted', async () => {
        const r = await ping('member', sessions[0]!);
        return r.status === 200;
      });
      second.close();
      await waitFor('both slots to be free', async () => {
        const [a, b] = await Promise.all([
          ping('member', sessions[0]!),
          ping('member', sessions[1]!),
        ]);
        return a.status === 200 && b.status === 200;
      });
    } finally {
      for (const c of open.splice(0)) c.abort();
      for (const s of sessions) await endSurely('member', s);
    }
  });

  it('refuses an initialize over the live sessions of a user with Retry-After, and admits one after a DELETE', async function () {
    const sessions: string[] = [];
    try {
      for (let i = 0; i < 3; i++) sessions.push(await initialize('member'));
      const refused = await post('member', initializeRequest('2025-11-25', 5));
      assertLimited(refused, 5);
      assert.match((JSON.parse(refused.text) as RpcError).error.message, /3 sessions/);
      // The method spelled with a JSON escape is an initialize all the same.
      const escaped = JSON.stringify(initializeRequest('2025-11-25', 6)).replace(
        '"initialize"',
        '"\\u0069nitialize"',
      );
      assert.match(escaped, /"\\u0069nitialize"/);
      assertLimited(await post('member', escaped), 6);
      // A request within a session is not a new session.
      assert.equal((await ping('member', sessions[0]!)).status, 200);

      assert.equal(await end('member', sessions.shift()!), 200);
      sessions.push(await initialize('member'));
    } finally {
      for (const s of sessions) await endSurely('member', s);
    }
  });
});
