import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Request, Response } from 'express';
import type { McpServer } from '@aiplane/crds';
import type { Logger } from '@aiplane/lib';
import { isPlatformAdmin, type Principal } from '../auth/principal.js';
import { ApiError } from '../errors/api-error.js';
import type { ResourceCache } from '../kube/resource-cache.js';
import { isAllowed } from '../mcp/available-tools.js';
import { ORGANIZATION_LABEL } from '../mcp/server-resource.js';
import type { FetchLike } from '../mcp/upstream/index.js';
import { isUuid } from '../validation.js';
import { firstId, messagesOf, unknownTool, type JsonRpcMessage } from './json-rpc.js';
import type { GatewayMetrics } from './metrics.js';
import type { OfferedTools } from './offered-tools.js';
import type { SessionBinder } from './session-id.js';
import { filterJsonBody, sseToolFilter } from './tool-filter.js';

/** Request headers an upstream sees: the MCP transport's own, nothing of the caller's identity. */
const FORWARDED_REQUEST_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
];
/** Response headers a client sees (Mcp-Session-Id is rewritten, see SessionBinder). */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'mcp-protocol-version', 'cache-control'];

export interface ProxyDeps {
  servers: ResourceCache<McpServer>;
  /** The bearer token for (server, user): static, or OAuth refreshed as needed; throws ApiError. */
  bearer: (serverId: string, userId: string) => Promise<string>;
  remoteFetch: FetchLike;
  workloadFetch: FetchLike;
  resolveWorkload: (url: string) => string;
  sessions: SessionBinder;
  offered: OfferedTools;
  metrics: GatewayMetrics;
  logger: Logger;
  /** How long the upstream may take to answer with headers (streams may then run on). */
  headersTimeoutMs: number;
}

const denied = () =>
  new ApiError('mcp_server_access_denied', 'no MCP server with this id is available to you');

/** The server, when the caller may use it: a member of its organization, or a platform admin. */
async function usableServer(d: ProxyDeps, id: string, principal: Principal): Promise<McpServer> {
  const server = isUuid(id) ? await d.servers.byUid(id) : undefined;
  const org = server?.metadata.labels?.[ORGANIZATION_LABEL];
  const member = principal.organizations.some((o) => o.id === org);
  if (!server || !org || (!member && !isPlatformAdmin(principal))) throw denied();
  if ((server.metadata as { deletionTimestamp?: string }).deletionTimestamp) throw denied();
  return server;
}

function upstreamOf(d: ProxyDeps, server: McpServer): { url: string; fetch: FetchLike } {
  if (server.spec.runtime === 'remote') {
    return { url: server.spec.address ?? '', fetch: d.remoteFetch };
  }
  if (server.status?.ready !== true || !server.status.url) {
    throw new ApiError('mcp_server_not_ready', 'the managed server is not serving yet; retry');
  }
  return { url: d.resolveWorkload(server.status.url), fetch: d.workloadFetch };
}

/** The refusal of a session id this user was not given: like an ended session (404). */
class SessionUnknown extends Error {}

function isToolsCall(m: JsonRpcMessage): m is JsonRpcMessage & { params: { name: string } } {
  return (
    m.method === 'tools/call' &&
    typeof (m.params as { name?: unknown } | undefined)?.name === 'string'
  );
}

/**
 * One request of an MCP client to `/servers/{id}/mcp`, proxied to the upstream with the
 * calling user's credential. Responses are streamed; only a `tools/list` answer of a server
 * with an allowlist is rewritten (a JSON body whole, an event stream event by event).
 */
export async function proxy(
  d: ProxyDeps,
  req: Request,
  res: Response,
  principal: Principal,
): Promise<void> {
  const method = req.method;
  const serverId = String(req.params.server_id ?? '');
  const server = await usableServer(d, serverId, principal);
  const upstream = upstreamOf(d, server);
  const allowlist = server.spec.toolAllowlist ?? [];
  const allowed = (name: string) => isAllowed(allowlist, name);

  const raw = method === 'POST' && Buffer.isBuffer(req.body) ? req.body : undefined;
  let messages: JsonRpcMessage[] | undefined;
  if (raw) {
    try {
      messages = messagesOf(JSON.parse(raw.toString('utf8')));
    } catch {
      messages = undefined; // not JSON: the upstream answers it
    }
  }

  // A session id not issued to this user (and server) is unknown, before anything else.
  const presented = req.get('mcp-session-id');
  const upstreamSession =
    presented === undefined ? undefined : d.sessions.open(presented, principal.userId, serverId);
  if (presented !== undefined && upstreamSession === undefined) throw new SessionUnknown();

  const bearer = await d.bearer(serverId, principal.userId);

  // The allowlist: a call of a tool that is not both allowed and offered is answered here.
  const calls = (messages ?? []).filter(isToolsCall);
  for (const call of calls) {
    let refuse = !allowed(call.params.name);
    if (!refuse) {
      const offered = await d.offered.names(
        { serverId, userId: principal.userId },
        { url: upstream.url, bearer, fetch: upstream.fetch },
      );
      refuse = offered !== undefined && !offered.has(call.params.name);
    }
    if (refuse) {
      d.metrics.refusals.inc({ code: 'unknown_tool' });
      d.metrics.requests.inc({ method, outcome: 'refused' });
      res
        .status(200)
        .type('application/json')
        .send(unknownTool(call.id ?? firstId(messages), call.params.name));
      return;
    }
  }

  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const v = req.get(name);
    if (v !== undefined) headers[name] = v;
  }
  if (upstreamSession !== undefined) headers['mcp-session-id'] = upstreamSession;

  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const headersTimer = setTimeout(() => abort.abort(), d.headersTimeoutMs);
  const started = process.hrtime.bigint();
  let answer: globalThis.Response;
  try {
    answer = await upstream.fetch(upstream.url, {
      method,
      headers,
      ...(raw ? { body: raw } : {}),
      redirect: 'manual',
      signal: abort.signal,
    });
  } catch (err) {
    d.logger.info({ server: serverId, err: (err as Error).name }, 'upstream did not answer');
    throw new ApiError('mcp_server_unreachable', 'the MCP server did not answer');
  } finally {
    clearTimeout(headersTimer);
  }
  d.metrics.upstreamSeconds.observe({ method }, Number(process.hrtime.bigint() - started) / 1e9);

  if (answer.status === 401 || answer.status === 403) {
    await answer.body?.cancel();
    throw new ApiError(
      'mcp_credential_rejected',
      'the MCP server refused your linked credential; link a new one',
    );
  }
  if (answer.status >= 300 && answer.status < 400) {
    await answer.body?.cancel();
    throw new ApiError('mcp_server_unreachable', 'the MCP server answered with a redirect');
  }

  res.status(answer.status);
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const v = answer.headers.get(name);
    if (v !== null) res.setHeader(name, v);
  }
  const session = answer.headers.get('mcp-session-id');
  if (session !== null) {
    res.setHeader('mcp-session-id', d.sessions.bind(session, principal.userId, serverId));
  }
  d.metrics.requests.inc({ method, outcome: 'proxied' });
  if (!answer.body) {
    res.end();
    return;
  }

  const listIds = new Set(
    (messages ?? [])
      .filter((m) => m.method === 'tools/list')
      .map((m) => JSON.stringify(m.id ?? null)),
  );
  const rewrite = allowlist.length > 0 && listIds.size > 0;
  const type = answer.headers.get('content-type') ?? '';
  if (rewrite && type.startsWith('application/json')) {
    const text = await answer.text();
    res.send(filterJsonBody(text, listIds, allowed));
    return;
  }
  let body = answer.body as unknown as WebReadableStream<Uint8Array>;
  if (rewrite && type.startsWith('text/event-stream')) {
    body = body.pipeThrough(sseToolFilter(listIds, allowed));
  }
  if (type.startsWith('text/event-stream')) res.flushHeaders();
  const stream = Readable.fromWeb(body);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

export { SessionUnknown };
