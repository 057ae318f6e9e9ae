import type { Request, Response } from 'express';
import { ORGANIZATION_LABEL } from '@aiplane/crds';
import { hasPermission, type Principal } from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import { serverAccessDenied } from '@aiplane/lib/mcp';
import { firstId, messagesOf } from './json-rpc.js';
import type { GatewayLimiter, Ticket } from './limits.js';
import { usableServer, type ServerDirectory } from './steps/access.js';
import { jsonBody, setRequestRpcId } from './steps/call.js';

/** The request's JSON-RPC messages (POST), read as the proxy reads them. */
function messages(req: Request) {
  return req.method === 'POST' ? messagesOf(jsonBody(req.body)) : undefined;
}

/** Refuses with the request's own id, as the proxy's refusals answer. */
function refuse(req: Request, res: Response, err: ApiError): never {
  setRequestRpcId(res, firstId(messages(req)));
  throw err;
}

/**
 * The gateway is an API router: a caller without `can_access_api` is refused (spec:
 * core-api.md, Permissions) exactly as for a server they may not use — same status, body and
 * headers — so the refusal tells nothing about the server (docs/adr/0010, "Who may call").
 */
export function requireApiAccess(req: Request, res: Response, principal: Principal): void {
  if (!hasPermission(principal, 'can_access_api')) {
    refuse(req, res, serverAccessDenied());
  }
}

/** The organization whose caps a call counts against: its server's, when the caller may use it. */
async function organizationOf(
  d: ServerDirectory,
  serverId: string,
  principal: Principal,
): Promise<string | undefined> {
  const server = await usableServer(d, serverId, principal);
  return server?.metadata.labels?.[ORGANIZATION_LABEL];
}

/** Whether a POST without a session id opens one: it carries an `initialize` request. */
function opensSession(req: Request): boolean {
  if (req.method !== 'POST' || req.get('mcp-session-id') !== undefined) return false;
  // Parsed, never searched for bytes: `"\u0069nitialize"` is an initialize too.
  return (messages(req) ?? []).some((m) => m.method === 'initialize');
}

/**
 * Takes the request's slots of the per-user and per-organization caps (docs/adr/0010, "Caps"),
 * held until the response ends or the client goes away; over a cap, throws
 * `mcp_gateway_limit_reached` with `Retry-After`.
 */
export async function admit(
  d: ServerDirectory & { limiter: GatewayLimiter },
  req: Request,
  res: Response,
  principal: Principal,
): Promise<void> {
  // Listen first: a client may leave while the server is looked up.
  const held: { ticket?: Ticket; closed: boolean } = { closed: false };
  const end = () => {
    const session = res.getHeader('mcp-session-id');
    held.ticket?.done({
      status: res.statusCode,
      method: req.method,
      session: typeof session === 'string' ? session : undefined,
    });
  };
  res.once('close', () => {
    held.closed = true;
    end();
  });
  // …or before it: while it was authenticated ('close' has fired already).
  if (res.destroyed) held.closed = true;
  const organizationId = await organizationOf(d, String(req.params.server_id ?? ''), principal);
  const admitted = d.limiter.admit({
    userId: principal.userId,
    organizationId,
    session: req.get('mcp-session-id'),
    opensSession: opensSession(req),
  });
  if ('refusal' in admitted) {
    const { message, retryAfterSeconds } = admitted.refusal;
    refuse(
      req,
      res,
      new ApiError('mcp_gateway_limit_reached', message, {
        'Retry-After': String(retryAfterSeconds),
      }),
    );
  }
  held.ticket = admitted.ticket;
  if (held.closed) end();
}
