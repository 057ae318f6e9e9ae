import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from '@aiplane/hack';
import { toolText } from './gateway-client.js';

const SERVER = join(repoRoot, 'e2e', 'mcp-server', 'server.js');

/** Starts e2e/mcp-server/server.js as the image does (node server.js), on a free port. */
async function startServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    // A bound for "it starts", not a speed target: node and the SDK load slowly on a busy CI machine.
    const timer = setTimeout(
      () => reject(new Error('server.js printed no listening line')),
      15_000,
    );
    lines.on('line', (line) => {
      const m = /^listening on http:\/\/0\.0\.0\.0:(\d+)(\/mcp)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}${m[2]}`);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server.js exited with ${code}`));
    });
  });
  return { child, url };
}

async function connect(url: string, bearer?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {},
  });
  const client = new Client({ name: 'e2e-unit', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport };
}

describe('the e2e MCP server image entry point (e2e/mcp-server/server.js)', function () {
  this.timeout(20_000);
  let server: { child: ChildProcess; url: string };

  before(async function () {
    server = await startServer({ MCP_SERVER_NAME: 'unit-test-name' });
  });

  after(async function () {
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
  });

  it('names itself after MCP_SERVER_NAME and offers add, echo and credential_fingerprint', async function () {
    const { client, transport } = await connect(server.url);
    try {
      assert.equal(client.getServerVersion()?.name, 'unit-test-name');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['add', 'credential_fingerprint', 'echo']);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('adds, echoes, and fingerprints the bearer token of the call without echoing it', async function () {
    const bearer = 'linked-credential-value';
    const { client, transport } = await connect(server.url, bearer);
    try {
      assert.equal(
        toolText(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })),
        '42',
      );
      assert.equal(
        toolText(await client.callTool({ name: 'add', arguments: { a: -1.5, b: 1 } })),
        '-0.5',
      );
      assert.equal(
        toolText(await client.callTool({ name: 'echo', arguments: { text: 'hé' } })),
        'hé',
      );
      const fp = toolText(await client.callTool({ name: 'credential_fingerprint', arguments: {} }));
      assert.equal(fp, createHash('sha256').update(bearer).digest('hex'));
      assert.ok(!fp.includes(bearer));
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('answers "none" as the fingerprint of a call without a bearer token', async function () {
    const { client, transport } = await connect(server.url);
    try {
      const fp = toolText(await client.callTool({ name: 'credential_fingerprint', arguments: {} }));
      assert.equal(fp, 'none');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('answers 400 without a session and 404 for an unknown session, as Streamable HTTP asks', async function () {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const none = await fetch(server.url, { method: 'POST', headers, body });
    assert.equal(none.status, 400);
    await none.body?.cancel();
    const unknown = await fetch(server.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': 'no-such-session' },
      body,
    });
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  });

  it('stops at once on SIGTERM (it is PID 1 in its container)', async function () {
    const other = await startServer({});
    const exited = once(other.child, 'exit');
    other.child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
  });
});
