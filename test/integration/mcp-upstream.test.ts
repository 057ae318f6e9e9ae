// The platform's MCP client against real servers on loopback: the official SDK's McpServer
// (hack's test server) and small express or node servers that misbehave on purpose.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import type { LookupAddress } from '@aiplane/lib';
import { type McpTestServer, startMcpTestServer } from '@aiplane/hack';
import express from 'express';
import {
  createPinnedFetch,
  listUpstreamTools,
  type PinnedFetch,
  UpstreamError,
} from '@aiplane/lib/mcp';

const CREDENTIAL = 'linked-credential-7f3a9c';

/** A plain HTTP server on 127.0.0.1 that counts requests and answers with `handle`. */
async function startPlainServer(
  handle: express.RequestHandler,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const app = express();
  app.use((req, res, next) => {
    requests++;
    next();
  });
  app.use(express.json());
  app.all('/mcp', handle);
  const server = await listen(createServer(app));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    requests: () => requests,
    close: () => closeServer(server),
  };
}

function listen(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A lookup from a fixed table that records every name it was asked for. */
function fakeLookup(table: Record<string, string[]>): {
  lookup: (host: string) => Promise<LookupAddress[]>;
  calls: string[];
} {
  const calls: string[] = [];
  return {
    calls,
    lookup: (host) => {
      calls.push(host);
      const addresses = table[host] ?? [];
      return Promise.resolve(
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    },
  };
}

/** Everything a log line could print about the error: messages, stacks, causes. */
function printed(error: unknown): string {
  return inspect(error, { depth: 10 });
}

function causeNames(error: unknown): string[] {
  const names: string[] = [];
  let current: unknown = error;
  while (current instanceof Error) {
    names.push(current.name);
    current = current.cause;
  }
  return names;
}

async function upstreamFailure(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${printed(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

describe('MCP upstream client', () => {
  let fetch: PinnedFetch;
  const cleanups: (() => Promise<void>)[] = [];

  beforeEach(() => {
    fetch = createPinnedFetch({ allowLoopback: true });
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await fetch.close();
  });

  async function mcpServer(opts: Parameters<typeof startMcpTestServer>[0]): Promise<McpTestServer> {
    const server = await startMcpTestServer(opts);
    cleanups.push(() => server.close());
    return server;
  }

  async function plainServer(
    handle: express.RequestHandler,
  ): Promise<Awaited<ReturnType<typeof startPlainServer>>> {
    const server = await startPlainServer(handle);
    cleanups.push(() => server.close());
    return server;
  }

  it('lists every tool of a real SDK server across cursor pages with the right credential', async () => {
    const server = await mcpServer({
      token: CREDENTIAL,
      tools: [
        { name: 'search', title: 'Search', description: 'Finds things.' },
        { name: 'fetch_page' },
        { name: 'summarize', description: 'Shortens text.' },
      ],
      pageSize: 2,
    });

    const tools = await listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch });

    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['echo', 'add', 'search', 'fetch_page', 'summarize'],
    );
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.equal(byName.get('echo')?.title, 'Echo');
    assert.deepEqual(byName.get('echo')?.inputSchema.required, ['text']);
    assert.deepEqual(Object.keys(byName.get('add')?.inputSchema.properties ?? {}), ['a', 'b']);
    assert.deepEqual(byName.get('search'), {
      name: 'search',
      title: 'Search',
      description: 'Finds things.',
      inputSchema: byName.get('search')?.inputSchema,
    });
    assert.equal(byName.get('fetch_page')?.title, null);
    assert.equal(byName.get('fetch_page')?.description, null);
    assert.equal(byName.get('fetch_page')?.inputSchema.type, 'object');
  });

  it('lists the tools of an SDK server that answers in a single page', async () => {
    const server = await mcpServer({ token: CREDENTIAL, tools: [{ name: 'only_one' }] });
    const tools = await listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch });
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['echo', 'add', 'only_one'],
    );
  });

  it('sends exactly the linked credential on every request and ends the session', async () => {
    const server = await mcpServer({ token: CREDENTIAL });
    await listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch });
    assert.ok(server.seenAuthorization.length >= 3, `saw ${server.seenAuthorization.length}`);
    for (const value of server.seenAuthorization) assert.equal(value, `Bearer ${CREDENTIAL}`);
    assert.equal(server.openSessions(), 0);
  });

  it('answers credential_rejected for a wrong credential without the credential in the error', async () => {
    const server = await mcpServer({ token: 'the-right-one' });
    const error = await upstreamFailure(
      listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch }),
    );
    assert.equal(error.reason, 'credential_rejected');
    assert.equal(error.message, 'upstream refused the credential (HTTP 401)');
    assert.ok(error.cause instanceof Error);
    assert.ok(!printed(error).includes(CREDENTIAL), printed(error));
    assert.deepEqual(server.seenAuthorization, [`Bearer ${CREDENTIAL}`]);
  });

  it('keeps the credential out of the error even when the upstream echoes it back', async () => {
    const server = await plainServer((req, res) => {
      res.status(403).json({ error: 'forbidden', received: req.header('authorization') });
    });
    const error = await upstreamFailure(
      listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch }),
    );
    assert.equal(error.reason, 'credential_rejected');
    assert.ok(!printed(error).includes(CREDENTIAL), printed(error));
    assert.match(printed(error.cause), /\[redacted\]/);
  });

  it('answers unreachable when the server has stopped and refuses connections', async () => {
    const server = await mcpServer({ token: CREDENTIAL });
    await server.stop();
    const error = await upstreamFailure(
      listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.equal(error.message, 'upstream connection refused');
  });

  it('answers unreachable when the server answers with an HTML page', async () => {
    const server = await plainServer((_req, res) => {
      res.status(200).type('html').send('<html><body>Welcome</body></html>');
    });
    const error = await upstreamFailure(
      listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.equal(error.message, 'upstream answered with a content type that is not MCP');
  });

  it('answers unreachable when the server answers 404', async () => {
    const server = await plainServer((_req, res) => {
      res.status(404).type('html').send('<h1>Not Found</h1>');
    });
    const error = await upstreamFailure(
      listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.equal(error.message, 'upstream answered HTTP 404');
  });

  it('answers unreachable when the server answers initialize with a JSON-RPC error', async () => {
    const server = await plainServer((req, res) => {
      const id: unknown = (req.body as { id?: unknown } | undefined)?.id ?? null;
      res.json({ jsonrpc: '2.0', id, error: { code: -32600, message: 'not today' } });
    });
    const error = await upstreamFailure(
      listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.equal(error.message, 'upstream answered with JSON-RPC error -32600');
  });

  it('refuses 127.0.0.1 at dial without allowLoopback, and the server sees no request', async () => {
    const server = await mcpServer({ token: CREDENTIAL });
    const strict = createPinnedFetch({ allowLoopback: false });
    cleanups.push(() => strict.close());
    const error = await upstreamFailure(
      listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch: strict }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.match(error.message, /refused at dial: .*\(rule: host_not_public\)/);
    assert.ok(causeNames(error).includes('DialRefusedError'), causeNames(error).join(' < '));
    assert.deepEqual(server.seenAuthorization, []);
  });

  for (const [host, address] of [
    ['internal.example.test', '10.0.0.1'],
    ['metadata.example.test', '169.254.169.254'],
    ['mixed.example.test', '127.0.0.1 and 10.0.0.1'],
  ] as const) {
    it(`refuses ${host} resolving to ${address} before connecting`, async () => {
      const dns = fakeLookup({
        'internal.example.test': ['10.0.0.1'],
        'metadata.example.test': ['169.254.169.254'],
        'mixed.example.test': ['127.0.0.1', '10.0.0.1'],
      });
      const pinned = createPinnedFetch({ allowLoopback: true, lookup: dns.lookup });
      cleanups.push(() => pinned.close());
      const error = await upstreamFailure(
        listUpstreamTools({ url: `http://${host}/mcp`, credential: CREDENTIAL, fetch: pinned }),
      );
      assert.equal(error.reason, 'unreachable');
      // Refused before connecting, by the dial check (not a speed claim: a dial to 10.0.0.1
      // would have ended in a connect timeout, with another message and no DialRefusedError).
      assert.equal(
        error.message,
        `upstream refused at dial: address host ${host} must resolve only to public addresses (rule: host_not_public)`,
      );
      assert.ok(causeNames(error).includes('DialRefusedError'));
      assert.ok(dns.calls.includes(host));
    });
  }

  it('dials the address the lookup answered when a name resolves to an allowed address', async () => {
    const server = await mcpServer({ token: CREDENTIAL });
    const dns = fakeLookup({ 'mcp.example.test': ['127.0.0.1'] });
    const pinned = createPinnedFetch({ allowLoopback: true, lookup: dns.lookup });
    cleanups.push(() => pinned.close());
    const url = `http://mcp.example.test:${server.port}/mcp`;
    const tools = await listUpstreamTools({ url, credential: CREDENTIAL, fetch: pinned });
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['echo', 'add'],
    );
    assert.ok(dns.calls.length >= 1);
  });

  it('checks the address again on a later dial: a name that rebinds to 169.254.169.254 is refused', async () => {
    const server = await mcpServer({ token: CREDENTIAL });
    const table: Record<string, string[]> = { 'rebind.example.test': ['127.0.0.1'] };
    const dns = fakeLookup(table);
    const url = `http://rebind.example.test:${server.port}/mcp`;

    const first = createPinnedFetch({ allowLoopback: true, lookup: dns.lookup });
    cleanups.push(() => first.close());
    await listUpstreamTools({ url, credential: CREDENTIAL, fetch: first });
    const seenBefore = server.seenAuthorization.length;

    table['rebind.example.test'] = ['169.254.169.254'];
    const second = createPinnedFetch({ allowLoopback: true, lookup: dns.lookup });
    cleanups.push(() => second.close());
    const error = await upstreamFailure(
      listUpstreamTools({ url, credential: CREDENTIAL, fetch: second }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.ok(causeNames(error).includes('DialRefusedError'));
    assert.equal(server.seenAuthorization.length, seenBefore);
  });

  it('does not follow a 302 redirect to another loopback server', async () => {
    const target = await mcpServer({ token: CREDENTIAL });
    const redirecting = await plainServer((_req, res) => {
      res.redirect(302, target.url);
    });
    const error = await upstreamFailure(
      listUpstreamTools({ url: redirecting.url, credential: CREDENTIAL, fetch }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.equal(
      error.message,
      'upstream answered with a redirect (HTTP 302), which is not followed',
    );
    assert.equal(redirecting.requests(), 1);
    assert.deepEqual(target.seenAuthorization, []);
  });

  it('does not follow a 307 redirect within the same server either', async () => {
    const server = await plainServer((_req, res) => {
      res.redirect(307, '/elsewhere');
    });
    const error = await upstreamFailure(
      listUpstreamTools({ url: server.url, credential: CREDENTIAL, fetch }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.equal(server.requests(), 1);
  });

  it('answers unreachable when the server never answers, once the timeout passes', async () => {
    const silent = await listen(createServer(() => undefined));
    cleanups.push(() => closeServer(silent));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const started = Date.now();
    const error = await upstreamFailure(
      listUpstreamTools({ url, credential: CREDENTIAL, fetch, timeoutMs: 500 }),
    );
    const elapsed = Date.now() - started;
    assert.equal(error.reason, 'unreachable');
    assert.equal(error.message, 'upstream did not answer within 500 ms');
    // Not before the timeout; the upper bound only says it ended, with slack for a loaded machine.
    assert.ok(elapsed >= 400 && elapsed < 30_000, `took ${elapsed} ms`);
  });

  it('answers unreachable when the caller aborts the listing', async () => {
    const silent = await listen(createServer(() => undefined));
    cleanups.push(() => closeServer(silent));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await upstreamFailure(
      listUpstreamTools({ url, credential: CREDENTIAL, fetch, signal: controller.signal }),
    );
    assert.equal(error.reason, 'unreachable');
    assert.equal(error.message, 'upstream call was cancelled');
  });
});
