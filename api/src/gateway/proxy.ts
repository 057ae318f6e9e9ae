import type { Request, Response } from 'express';
import { metaTime, type McpServer, type TenantLifecycle } from '@aiplane/crds';
import type { Logger } from '@aiplane/lib';
import { isPlatformAdmin, type Principal } from '../auth/principal.js';
import { ApiError } from '../errors/api-error.js';
import type { ResourceCache } from '../kube/resource-cache.js';
import { isAllowed } from '../mcp/available-tools.js';
import { organizationNamespace } from '../mcp/organization-namespace.js';
import { ORGANIZATION_LABEL } from '../mcp/server-resource.js';
import { ACCESS_DENIED_MESSAGE } from '../mcp/server-store.js';
import { upstreamTarget, type UpstreamDialers } from '../mcp/upstream-target.js';
import { isUuid } from '../validation.js';
import {
  batchNotProcessed,
  firstId,
  headerMismatch,
  messagesOf,
  parseError,
  unknownTool,
  type JsonRpcId,
  type JsonRpcMessage,
} from './json-rpc.js';
import type { GatewayUpstreamLimits } from './config.js';
import type { GatewayMetrics } from './metrics.js';
import type { OfferedTools } from './offered-tools.js';
import { relayAnswer } from './relay.js';
import type { SessionBinder } from './session-id.js';
import { standardHeaderMismatch } from './standard-headers.js';

/** Request headers an upstream sees: the MCP transport's own, nothing of the caller's identity. */
const FORWARDED_REQUEST_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'last-event-id',
  'mcp-method',
  'mcp-name',
];

export interface ProxyDeps extends UpstreamDialers {
  servers: ResourceCache<McpServer>;
  tenants: ResourceCache<TenantLifecycle>;
  /** The bearer token for (server, user): static, or OAuth refreshed as needed; throws ApiError. */
  bearer: (serverId: string, userId: string) => Promise<string>;
  sessions: SessionBinder;
  offered: OfferedTools;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Timeouts and the buffer cap for upstream answers (docs/adr/0010). */
  upstreamLimits: GatewayUpstreamLimits;
}

const denied = () => new ApiError('mcp_server_access_denied', ACCESS_DENIED_MESSAGE);

/** The server, when the caller may use it: a member of its organization, or a platform admin. */
async function usableServer(d: ProxyDeps, id: string, principal: Principal): Promise<McpServer> {
  const server = isUuid(id) ? await d.servers.byUid(id) : undefined;
  const org = server?.metadata.labels?.[ORGANIZATION_LABEL];
  const member = principal.organizations.some((o) => o.id === org);
  if (!server || !org || (!member && !isPlatformAdmin(principal))) throw denied();
  // The label alone is not trusted: the server must live in that organization's namespace.
  if (server.metadata.namespace !== organizationNamespace(d.tenants, org)) throw denied();
  if (metaTime(server.metadata, 'deletionTimestamp') !== undefined) throw denied();
  return server;
}

/** The `params.name` of a tools/call, when it is a string. */
function toolName(m: JsonRpcMessage): string | undefined {
  const name = toolNameValue(m);
  return typeof name === 'string' ? name : undefined;
}

function toolNameValue(m: JsonRpcMessage): unknown {
  const params = m.params;
  return typeof params === 'object' && params !== null
    ? (params as { name?: unknown }).name
    : undefined;
}

/** The refusal of a session id this user was not given: like an ended session (404). */
class SessionUnknown extends Error {}

const parsedBodies = new WeakMap<Buffer, unknown>();

/** A body as JSON, when it is UTF-8 without a byte-order mark that parses; else undefined. */
export function jsonBody(body: unknown): unknown {
  if (!Buffer.isBuffer(body)) return undefined;
  // Admission and the proxy both read the body: it is parsed once.
  if (parsedBodies.has(body)) return parsedBodies.get(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body));
  } catch {
    parsed = undefined;
  }
  parsedBodies.set(body, parsed);
  return parsed;
}

/** The request's first JSON-RPC id, kept for refusals made after the handler threw. */
export function setRequestRpcId(res: Response, id: JsonRpcId): void {
  (res.locals as { rpcId?: JsonRpcId }).rpcId = id;
}

/** The id {@link proxy} found in the request (null when it read none). */
export function requestRpcId(res: Response): JsonRpcId {
  return (res.locals as { rpcId?: JsonRpcId }).rpcId ?? null;
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
  // Abort the upstream whenever the client goes away, from the very start (before anything
  // is awaited, so a client that leaves early is never missed).
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  // A client that left while it was authenticated or admitted closed before this listener.
  if (res.destroyed) abort.abort();
  const method = req.method;
  const serverId = String(req.params.server_id ?? '');
  // A POST body must be JSON-RPC the gateway itself can read: what it cannot check (a BOM, a
  // foreign charset, a batch with a non-object) is refused, never forwarded; what is forwarded
  // is the gateway's own serialisation of what it checked. Read first, so that every refusal
  // answers the request's id (the error handler finds it in res.locals).
  const parsed = method === 'POST' ? jsonBody(req.body) : undefined;
  const messages = messagesOf(parsed);
  setRequestRpcId(res, firstId(messages));

  const server = await usableServer(d, serverId, principal);
  const upstream = upstreamTarget(server, d);
  const allowlist = server.spec.toolAllowlist ?? [];
  const allowed = (name: string) => isAllowed(allowlist, name);

  let forwardBody: string | undefined;
  if (method === 'POST') {
    if (!messages) {
      d.metrics.refusals.inc({ code: 'parse_error' });
      res.status(400).type('application/json').send(parseError());
      return;
    }
    // Revision 2026-07-28: an upstream may route by Mcp-Method / Mcp-Name; they must name
    // what the gateway checks in the body.
    const mismatch = standardHeaderMismatch(messages, Array.isArray(parsed), (n) => req.get(n));
    if (mismatch !== undefined) {
      d.metrics.refusals.inc({ code: 'header_mismatch' });
      res
        .status(400)
        .type('application/json')
        .send(headerMismatch(firstId(messages), mismatch));
      return;
    }
    forwardBody = JSON.stringify(parsed);
  }

  // A session id not issued to this user (and server) is unknown, before anything else.
  const presented = req.get('mcp-session-id');
  const upstreamSession =
    presented === undefined ? undefined : d.sessions.open(presented, principal.userId, serverId);
  if (presented !== undefined && upstreamSession === undefined) throw new SessionUnknown();

  const bearer = await d.bearer(serverId, principal.userId);

  // The allowlist: a call of a tool that is not both allowed and offered is answered here
  // (without one, whether it is offered is the upstream's to answer: docs/adr/0010), as is a
  // call whose tool name is not a string.
  const refused = new Map<JsonRpcMessage, string>();
  for (const call of (messages ?? []).filter((m) => m.method === 'tools/call')) {
    const name = toolName(call);
    let refuse = name === undefined || !allowed(name);
    if (!refuse && name !== undefined && allowlist.length > 0) {
      const offered = await d.offered.names(
        { serverId, userId: principal.userId },
        { url: upstream.url, bearer, fetch: upstream.fetch },
      );
      refuse = offered !== undefined && !offered.has(name);
    }
    if (refuse) refused.set(call, name ?? JSON.stringify(toolNameValue(call)) ?? 'undefined');
  }
  if (refused.size > 0) {
    d.metrics.refusals.inc({ code: 'unknown_tool' });
    d.metrics.requests.inc({ method, outcome: 'refused' });
    res.status(200).type('application/json');
    const [single] = refused;
    if (single && !Array.isArray(parsed)) {
      // One message, so one refused call.
      const [call, name] = single;
      res.send(unknownTool(call.id ?? null, name));
      return;
    }
    // A (2025-03-26) batch with a refused call is not forwarded at all: every request in it
    // is answered, the refused calls exactly as a single unknown tool would be.
    res.send(
      `[${(messages ?? [])
        .filter((m) => m.id !== undefined && m.method !== undefined)
        .map((m) => {
          const name = refused.get(m);
          return name !== undefined
            ? unknownTool(m.id ?? null, name)
            : batchNotProcessed(m.id ?? null);
        })
        .join(',')}]`,
    );
    return;
  }

  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const v = req.get(name);
    if (v !== undefined) headers[name] = v;
  }
  if (upstreamSession !== undefined) headers['mcp-session-id'] = upstreamSession;

  if (abort.signal.aborted) return; // the client left
  const started = process.hrtime.bigint();
  const limits = d.upstreamLimits;
  // The headers timeout covers connecting too; the connect timeout is the dialer's own.
  let timedOut = false;
  const headersTimer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, limits.headersTimeoutMs);
  let answer: globalThis.Response;
  try {
    answer = await upstream.fetch(upstream.url, {
      method,
      headers,
      ...(forwardBody !== undefined ? { body: forwardBody } : {}),
      redirect: 'manual',
      signal: abort.signal,
    });
  } catch (err) {
    if (timedOut || connectTimedOut(err)) {
      d.logger.info({ server: serverId }, 'upstream timed out before answering');
      throw new ApiError('mcp_server_timeout', 'the MCP server did not answer in time');
    }
    if (abort.signal.aborted) return; // the client left
    d.logger.info({ server: serverId, err: (err as Error).name }, 'upstream did not answer');
    throw new ApiError('mcp_server_unreachable', 'the MCP server did not answer');
  } finally {
    clearTimeout(headersTimer);
  }
  d.metrics.upstreamSeconds.observe({ method }, Number(process.hrtime.bigint() - started) / 1e9);
  await relayAnswer(
    { ...d, serverId, userId: principal.userId, allowlist, abort, requestId: firstId(messages) },
    answer,
    res,
  );
}

/** undici's connect timeout (the dialer's `connectTimeoutMs`), as fetch reports it. */
function connectTimedOut(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'UND_ERR_CONNECT_TIMEOUT';
}

export { SessionUnknown };
