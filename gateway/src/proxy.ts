import type { Request, Response } from 'express';
import type { McpServer, TenantLifecycle } from '@aiplane/crds';
import type { Logger, ResourceCache } from '@aiplane/lib';
import type { Principal } from '@aiplane/lib/auth';
import { upstreamTarget, type UpstreamDialers } from '@aiplane/lib/mcp';
import type { GatewayUpstreamLimits } from './config.js';
import type { GatewayMetrics } from './metrics.js';
import type { OfferedTools } from './offered-tools.js';
import { relayAnswer } from './relay.js';
import type { SessionBinder } from './session-id.js';
import { resolveServer } from './steps/access.js';
import { refusalAnswer, refusedCalls } from './steps/allowlist.js';
import { checkBody, readCall } from './steps/call.js';
import { forward } from './steps/forward.js';
import { upstreamSession } from './steps/session.js';

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

/**
 * One request of an MCP client to `/servers/{id}/mcp` (authenticated and admitted by app.ts),
 * proxied to the upstream with the calling user's credential: a chain of steps (steps/), each
 * of which may answer or throw a refusal. Responses are streamed; only a `tools/list` answer
 * of a server with an allowlist is rewritten (a JSON body whole, an event stream event by event).
 */
export async function proxy(
  d: ProxyDeps,
  req: Request,
  res: Response,
  principal: Principal,
): Promise<void> {
  // Abort the upstream whenever the client goes away, from the very start (before anything
  // is awaited, so a client that leaves early is never missed). An answer sent whole has no
  // upstream request left to abort (aborting one that ended costs as much as a small call).
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  // A client that left while it was authenticated or admitted closed before this listener.
  if (res.destroyed) abort.abort();
  const userId = principal.userId;

  const call = readCall(req, res);
  const server = await resolveServer(d, call.serverId, principal);
  const upstream = upstreamTarget(server, d);
  const body = checkBody(call, (name) => req.get(name));
  if ('refusal' in body) {
    d.metrics.refusals.inc({ code: body.refusal.metric });
    res.status(400).type('application/json').send(body.refusal.body);
    return;
  }
  const session = upstreamSession(d.sessions, req, userId, call.serverId);
  const bearer = await d.bearer(call.serverId, userId);

  const allowlist = server.spec.toolAllowlist ?? [];
  const refused = await refusedCalls(call, allowlist, () =>
    d.offered.names(
      { serverId: call.serverId, userId },
      { url: upstream.url, bearer, fetch: upstream.fetch },
    ),
  );
  if (refused.size > 0) {
    d.metrics.refusals.inc({ code: 'unknown_tool' });
    d.metrics.requests.inc({ method: call.method, outcome: 'refused' });
    res.status(200).type('application/json').send(refusalAnswer(call, refused));
    return;
  }

  const started = process.hrtime.bigint();
  const answer = await forward(d, upstream, {
    req,
    serverId: call.serverId,
    bearer,
    session,
    body: body.forward,
    abort,
  });
  if (answer === undefined) return; // the client left
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  d.metrics.upstreamSeconds.observe({ method: call.method }, seconds);
  await relayAnswer(
    { ...d, serverId: call.serverId, userId, allowlist, abort, requestId: call.requestId },
    answer,
    res,
  );
}
