import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  type CallToolResult,
  isInitializeRequest,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { z } from 'zod';

/** An extra tool; it answers every call with `result` (default: its own name). */
export interface McpTestTool {
  name: string;
  title?: string;
  description?: string;
  result?: string;
  /** Its answer is a tool error (`isError: true`). */
  fails?: boolean;
}

export interface McpTestServerOptions {
  /** When set, every request must carry `Authorization: Bearer <token>`; otherwise 401. */
  token?: string;
  /**
   * When set, the server is an OAuth-protected resource (MCP authorization 2025-11-25): the
   * SDK's `requireBearerAuth` checks every request's token with `verifier` and answers a 401
   * whose Bearer challenge names the protected resource metadata (RFC 9728), served at the
   * path-aware well-known URI and naming `authorizationServer`.
   */
  oauth?: McpTestOAuth;
  /** Tools offered besides `echo` and `add`. */
  tools?: McpTestTool[];
  /** The endpoint path; default `/mcp`. */
  path?: string;
  /** Always loopback. */
  host?: '127.0.0.1';
  /** Default 0: any free port. */
  port?: number;
  /** When set, `tools/list` answers this many tools per page, with `nextCursor`. */
  pageSize?: number;
}

export interface McpTestOAuth {
  /** The authorization server's issuer identifier. */
  authorizationServer: string;
  verifier: OAuthTokenVerifier;
  /** `scopes_supported` of the metadata. */
  scopes?: string[];
}

export interface McpTestServer {
  /** The full endpoint URL, e.g. http://127.0.0.1:40123/mcp. */
  url: string;
  port: number;
  /** Every Authorization header value received (or '' when absent), in order. */
  seenAuthorization: string[];
  /** How many MCP sessions are open (initialized and not ended by DELETE). */
  openSessions(): number;
  /** Stops listening and drops open connections, so new connections are refused. */
  stop(): Promise<void>;
  /** Stops and ends every MCP session. */
  close(): Promise<void>;
}

interface ToolEntry {
  name: string;
  title?: string;
  description?: string;
  shape: z.ZodRawShape;
  run: (args: Record<string, unknown>) => CallToolResult;
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

function toolTable(extra: McpTestTool[]): ToolEntry[] {
  return [
    {
      name: 'echo',
      title: 'Echo',
      description: 'Returns the text it is given.',
      shape: { text: z.string() },
      run: (args) => text(String(args.text)),
    },
    {
      name: 'add',
      title: 'Add',
      description: 'Adds two numbers.',
      shape: { a: z.number(), b: z.number() },
      run: (args) => text(String(Number(args.a) + Number(args.b))),
    },
    ...extra.map(({ result, fails, ...tool }) => ({
      ...tool,
      shape: {},
      run: () => ({ ...text(result ?? tool.name), ...(fails === true ? { isError: true } : {}) }),
    })),
  ];
}

/** `tools/list` answered page by page; McpServer itself always answers one page. */
function pagedToolList(
  tools: ToolEntry[],
  pageSize: number,
): (cursor: string | undefined) => { tools: Tool[]; nextCursor?: string } {
  const all: Tool[] = tools.map((tool) => ({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: z.toJSONSchema(z.object(tool.shape)) as Tool['inputSchema'],
  }));
  return (cursor) => {
    const start = cursor === undefined ? 0 : Number.parseInt(cursor, 10);
    const end = start + pageSize;
    return end < all.length
      ? { tools: all.slice(start, end), nextCursor: String(end) }
      : { tools: all.slice(start) };
  };
}

function buildMcpServer(tools: ToolEntry[], pageSize: number | undefined): McpServer {
  const server = new McpServer({ name: 'aiplane-test-server', version: '0.1.0' });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        ...(tool.title === undefined ? {} : { title: tool.title }),
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: tool.shape,
      },
      (args: Record<string, unknown>) => tool.run(args),
    );
  }
  if (pageSize !== undefined) {
    const page = pagedToolList(tools, pageSize);
    // Replaces the handler McpServer registered with the first tool.
    server.server.setRequestHandler(ListToolsRequestSchema, (request) =>
      page(request.params?.cursor),
    );
  }
  return server;
}

function jsonRpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * A real MCP server (the official SDK's McpServer over Streamable HTTP, stateful sessions)
 * on 127.0.0.1, for tests and `make dev`. Offers `echo` ({text}) and `add` ({a, b}) plus
 * any named tools, optionally requires a bearer token, and records the Authorization
 * header of every request so tests can prove which credential was sent.
 */
export async function startMcpTestServer(opts: McpTestServerOptions = {}): Promise<McpTestServer> {
  const path = opts.path ?? '/mcp';
  const tools = toolTable(opts.tools ?? []);
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const seenAuthorization: string[] = [];

  const app = express();
  let port = 0;
  const resourceUrl = () => `http://127.0.0.1:${port}${path}`;
  const metadataPath = `/.well-known/oauth-protected-resource${path}`;
  let bearerAuth: RequestHandler | undefined;
  const oauth = opts.oauth;
  if (oauth !== undefined) {
    app.get(metadataPath, (_req: Request, res: Response) => {
      res.json({
        resource: resourceUrl(),
        authorization_servers: [oauth.authorizationServer],
        ...(oauth.scopes === undefined ? {} : { scopes_supported: oauth.scopes }),
        bearer_methods_supported: ['header'],
      });
    });
  }
  app.use(path, (req: Request, res: Response, next: NextFunction) => {
    const authorization = req.header('authorization') ?? '';
    seenAuthorization.push(authorization);
    if (oauth !== undefined) {
      bearerAuth ??= requireBearerAuth({
        verifier: oauth.verifier,
        resourceMetadataUrl: `http://127.0.0.1:${port}${metadataPath}`,
      });
      bearerAuth(req, res, next);
      return;
    }
    if (opts.token !== undefined && authorization !== `Bearer ${opts.token}`) {
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer error="invalid_token"')
        .json({ error: 'invalid_token', error_description: 'missing or wrong bearer token' });
      return;
    }
    next();
  });

  app.post(path, express.json(), async (req: Request, res: Response) => {
    const sessionId = req.header('mcp-session-id');
    let transport = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (transport === undefined) {
      if (sessionId !== undefined) return jsonRpcError(res, 404, 'Session not found');
      if (!isInitializeRequest(req.body)) return jsonRpcError(res, 400, 'Missing session id');
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId !== undefined) sessions.delete(created.sessionId);
      };
      await buildMcpServer(tools, opts.pageSize).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });

  const existingSession = async (req: Request, res: Response): Promise<void> => {
    const sessionId = req.header('mcp-session-id');
    if (sessionId === undefined) return jsonRpcError(res, 400, 'Missing session id');
    const transport = sessions.get(sessionId);
    if (transport === undefined) return jsonRpcError(res, 404, 'Session not found');
    await transport.handleRequest(req, res);
  };
  app.get(path, existingSession);
  app.delete(path, existingSession);

  const server = await new Promise<HttpServer>((resolve, reject) => {
    const listening = app.listen(opts.port ?? 0, '127.0.0.1', (error?: Error) => {
      if (error) reject(error);
      else resolve(listening);
    });
  });
  port = (server.address() as AddressInfo).port;

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return stopped;
  };

  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    seenAuthorization,
    openSessions: () => sessions.size,
    stop,
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((transport) => transport.close().catch(() => undefined)));
      await stop();
    },
  };
}

/** A raw JSON-RPC `initialize` request, as a bare client sends it. */
export function initializeRequest(protocolVersion = '2025-11-25', id = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}
