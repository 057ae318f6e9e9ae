import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Logger } from '@aiplane/lib';
import { authenticate, principalOf, type Authenticator } from '@aiplane/lib/auth';
import { ApiError, fromBodyParser, notFound } from '@aiplane/lib/errors';
import { probeRoutes, requestLog } from '@aiplane/lib/service';
import { admit, requireApiAccess } from './admission.js';
import { platformError, sessionNotFound } from './json-rpc.js';
import type { GatewayLimiter } from './limits.js';
import { proxy, type ProxyDeps } from './proxy.js';
import { requestRpcId } from './steps/call.js';
import { SessionUnknown } from './steps/session.js';

export interface GatewayAppDeps extends ProxyDeps {
  logger: Logger;
  authenticator: Authenticator;
  ready: () => Promise<boolean>;
  /** The per-user and per-organization caps (this replica's counts). */
  limiter: GatewayLimiter;
}

/** The platform codes whose refusal carries `WWW-Authenticate: Bearer error="<code>"` (spec). */
const CREDENTIAL_CODES = new Set([
  'mcp_credential_not_linked',
  'mcp_credential_rejected',
  'mcp_credential_expired',
]);
const AUTHENTICATION_CODES = new Set([
  'authentication_required',
  'invalid_token',
  'invalid_api_key',
]);

/**
 * Every refusal as JSON-RPC 2.0 with the platform code at `error.data.code` (docs/gateway.md),
 * after the same mapping of body-parser and router failures as the API's (errors/middleware).
 */
function gatewayErrors(deps: GatewayAppDeps): ErrorRequestHandler {
  return (thrown: unknown, req, res, next) => {
    if (res.headersSent) {
      next(thrown);
      return;
    }
    const err = fromBodyParser(thrown);
    const id = requestRpcId(res);
    if (err instanceof SessionUnknown) {
      deps.metrics.refusals.inc({ code: 'session_unknown' });
      res.status(404).type('application/json').send(sessionNotFound(id));
      return;
    }
    if (err instanceof ApiError) {
      deps.metrics.refusals.inc({ code: err.code });
      deps.metrics.requests.inc({ method: req.method, outcome: 'refused' });
      res.set(err.headers);
      if (CREDENTIAL_CODES.has(err.code)) {
        res.set('WWW-Authenticate', `Bearer error="${err.code}"`);
      } else if (AUTHENTICATION_CODES.has(err.code)) {
        res.set('WWW-Authenticate', `Bearer realm="aiplane", error="invalid_token"`);
      }
      res
        .status(err.status)
        .type('application/json')
        .send(platformError(id, err.code, err.message));
      return;
    }
    deps.logger.error(
      { err: thrown, method: req.method, path: req.path },
      'unhandled gateway error',
    );
    deps.metrics.requests.inc({ method: req.method, outcome: 'failed' });
    res
      .status(500)
      .type('application/json')
      .send(platformError(id, 'internal_error', 'internal error'));
  };
}

/** The MCP Gateway: `POST|GET|DELETE /servers/{server_id}/mcp` (spec: MCP Gateway). */
export function createGatewayApp(deps: GatewayAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Every answer is one user's (filtered for them, or a refusal): no cache may keep it.
  app.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  app.use(requestLog(deps.logger));
  probeRoutes(app, deps.ready);

  const mcp = express.Router({ mergeParams: true });
  // Who calls first: an anonymous caller cannot make the gateway buffer a body.
  mcp.use(authenticate(deps.authenticator));
  mcp.use(express.raw({ type: () => true, limit: '4mb' }));
  mcp.all('/', async (req, res) => {
    if (!['POST', 'GET', 'DELETE'].includes(req.method)) {
      res.status(405).set('Allow', 'POST, GET, DELETE').end();
      return;
    }
    const principal = principalOf(res);
    requireApiAccess(req, res, principal);
    await admit(deps, req, res, principal);
    await proxy(deps, req, res, principal);
  });
  app.use('/servers/:server_id/mcp', mcp);
  app.use(notFound);
  app.use(gatewayErrors(deps));
  return app;
}
