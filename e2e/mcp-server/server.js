/* global process, console */
// The managed MCP server of the kind e2e suite (image registry.e2e.local/aiplane/e2e-mcp:1).
// The official SDK's Streamable HTTP example (stateful sessions, JSON responses), reduced to
// what the suite needs, on 0.0.0.0:$PORT (default 8000) at /mcp:
//   add                     {a, b} → the sum, as text
//   echo                    {text} → the text
//   credential_fingerprint  {}     → sha256 hex of the bearer token of the HTTP request that
//                                    carried the call ("none" without one): proves which
//                                    credential the gateway injected, never echoes it.
// MCP_SERVER_NAME (default aiplane-e2e-mcp) is the serverInfo name, so a client can see that
// the environment the platform stored reached the pod. It writes nothing to disk, so it runs
// with a read-only root filesystem, as a numeric non-root user (see the Dockerfile).
import { createHash, randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const PATH = '/mcp';
const HOST = '0.0.0.0';
const port = Number(process.env.PORT ?? '8000');
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(2);
}
const serverName = process.env.MCP_SERVER_NAME || 'aiplane-e2e-mcp';

/** @param {string} value */
const text = (value) => ({ content: [{ type: 'text', text: value }] });

/** @param {string | string[] | undefined} header */
function fingerprint(header) {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /^Bearer\s+(.+)$/i.exec(value ?? '');
  if (!match) return 'none';
  return createHash('sha256').update(match[1].trim()).digest('hex');
}

function buildServer() {
  const server = new McpServer({ name: serverName, version: '1.0.0' });
  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
    },
    ({ a, b }) => text(String(a + b)),
  );
  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the text it is given.',
      inputSchema: { text: z.string() },
    },
    (args) => text(args.text),
  );
  server.registerTool(
    'credential_fingerprint',
    {
      title: 'Credential fingerprint',
      description: 'SHA-256 (hex) of the bearer token this call arrived with, or "none".',
      inputSchema: {},
    },
    (_args, extra) => text(fingerprint(extra.requestInfo?.headers?.authorization)),
  );
  return server;
}

/** @type {Map<string, StreamableHTTPServerTransport>} */
const sessions = new Map();

/**
 * @param {import('express').Response} res
 * @param {number} status
 * @param {number} code
 * @param {string} message
 */
function rpcError(res, status, code, message) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

const app = createMcpExpressApp({ host: HOST });

app.post(PATH, async (req, res) => {
  try {
    const sessionId = req.get('mcp-session-id');
    const known = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (known) {
      await known.handleRequest(req, res, req.body);
      return;
    }
    if (sessionId !== undefined) {
      rpcError(res, 404, -32001, 'Session not found');
      return;
    }
    if (!isInitializeRequest(req.body)) {
      rpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await buildServer().connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch (err) {
    console.error('MCP request failed:', err instanceof Error ? err.message : String(err));
    if (!res.headersSent) rpcError(res, 500, -32603, 'Internal server error');
  }
});

/** GET (the server stream) and DELETE (end of session) go to the session's transport. */
async function sessionRequest(req, res) {
  const sessionId = req.get('mcp-session-id');
  const transport = sessionId === undefined ? undefined : sessions.get(sessionId);
  if (!transport) {
    if (sessionId === undefined) rpcError(res, 400, -32000, 'Bad Request: missing session ID');
    else rpcError(res, 404, -32001, 'Session not found');
    return;
  }
  await transport.handleRequest(req, res);
}
app.get(PATH, sessionRequest);
app.delete(PATH, sessionRequest);

const listener = app.listen(port, HOST, (err) => {
  if (err) {
    console.error(`cannot listen on ${HOST}:${port}: ${err.message}`);
    process.exit(1);
  }
  const address = listener.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  // The unit test and the pod log read this line.
  console.log(`listening on http://${HOST}:${actual}${PATH}`);
});

// PID 1 in a container has no default signal handling: stop at once on SIGTERM, so a pod
// (and so a tenant namespace) goes away without waiting for the grace period.
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    for (const transport of sessions.values()) void transport.close();
    listener.close();
    process.exit(0);
  });
}
