import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { type CallToolResult, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** An extra tool; it answers every call with its own name. */
export interface Mcp2026TestTool {
  name: string;
  title?: string;
  description?: string;
}

export interface Mcp2026TestServerOptions {
  /** When set, every request must carry `Authorization: Bearer <token>`; otherwise 401. */
  token?: string;
  /** Tools offered besides `echo` and `add`. */
  tools?: Mcp2026TestTool[];
  /**
   * How 2025-era traffic (initialize, sessions) is served: `'reject'` (default) makes a
   * 2026-07-28-only server; `'stateless'` also answers 2025 requests, without sessions.
   * Either way GET and DELETE answer 405.
   */
  legacy?: 'reject' | 'stateless';
  /** The endpoint path; default `/mcp`. */
  path?: string;
  /** Default 0: any free port. */
  port?: number;
}

export interface Mcp2026TestServer {
  /** The full endpoint URL, e.g. http://127.0.0.1:40123/mcp. */
  url: string;
  port: number;
  /** Every Authorization header value received (or '' when absent), in order. */
  seenAuthorization: string[];
  /** Every Mcp-Method header value received (or '' when absent), in order. */
  seenMcpMethod: string[];
  /** Stops listening, drops open connections and ends in-flight exchanges. */
  close(): Promise<void>;
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

function buildServer(extra: Mcp2026TestTool[]): McpServer {
  const server = new McpServer({ name: 'aiplane-2026-test-server', version: '0.1.0' });
  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the text it is given.',
      inputSchema: z.object({ text: z.string() }),
    },
    ({ text: value }) => text(value),
  );
  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
    },
    ({ a, b }) => text(String(a + b)),
  );
  for (const tool of extra) {
    server.registerTool(
      tool.name,
      {
        ...(tool.title === undefined ? {} : { title: tool.title }),
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: z.object({}),
      },
      () => text(tool.name),
    );
  }
  return server;
}

/** The web-standard Request for a node:http request; the body streams when there is one. */
function toWebRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(req), duplex: 'half' } : {}),
  });
}

/** Writes a web Response to a node:http response, streaming its body (SSE included). */
async function sendWebResponse(answer: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(answer.status, answer.statusText, headers);
  if (answer.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const body = Readable.fromWeb(answer.body);
  await new Promise<void>((resolve) => {
    body.on('error', () => {
      res.destroy();
      resolve();
    });
    res.on('close', () => {
      body.destroy();
      resolve();
    });
    body.pipe(res);
  });
}

/**
 * A real MCP server speaking protocol revision 2026-07-28 (the official v2 SDK's
 * `createMcpHandler`: no initialize, no sessions, `server/discover`, per-request `_meta`
 * envelope) on 127.0.0.1, for tests. Offers `echo` ({text}) and `add` ({a, b}) plus any named
 * tools, optionally requires a bearer token, and records the Authorization and Mcp-Method
 * header of every request so tests can prove what an intermediary forwarded.
 */
export async function startMcp2026TestServer(
  opts: Mcp2026TestServerOptions = {},
): Promise<Mcp2026TestServer> {
  const path = opts.path ?? '/mcp';
  const extra = opts.tools ?? [];
  const handler = createMcpHandler(() => buildServer(extra), { legacy: opts.legacy ?? 'reject' });
  const seenAuthorization: string[] = [];
  const seenMcpMethod: string[] = [];

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
    if (new URL(req.url ?? '/', origin).pathname !== path) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found' }));
      return;
    }
    const authorization = req.headers.authorization ?? '';
    seenAuthorization.push(authorization);
    const mcpMethod = req.headers['mcp-method'];
    seenMcpMethod.push(typeof mcpMethod === 'string' ? mcpMethod : '');
    if (opts.token !== undefined && authorization !== `Bearer ${opts.token}`) {
      req.resume();
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': 'Bearer error="invalid_token"',
      });
      res.end(
        JSON.stringify({
          error: 'invalid_token',
          error_description: 'missing or wrong bearer token',
        }),
      );
      return;
    }
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const answer = await handler.fetch(toWebRequest(req, origin, abort.signal));
    await sendWebResponse(answer, res);
  };

  const server: HttpServer = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32603, message: (error as Error).message },
        }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    seenAuthorization,
    seenMcpMethod,
    close: () => {
      closed ??= (async () => {
        await handler.close().catch(() => undefined);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}
