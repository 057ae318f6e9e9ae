import type { IncomingMessage } from 'node:http';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@aiplane/lib';
import type { Authenticator } from '../auth/authenticator.js';
import { authenticate, principalOf } from '../auth/middleware.js';
import { ApiError } from '../errors/api-error.js';
import { firstId, messagesOf, platformError } from './json-rpc.js';
import { proxy, SessionUnknown, type ProxyDeps } from './proxy.js';

export interface GatewayAppDeps extends ProxyDeps {
  logger: Logger;
  authenticator: Authenticator;
  ready: () => Promise<boolean>;
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

function requestId(body: unknown): ReturnType<typeof firstId> {
  if (!Buffer.isBuffer(body)) return null;
  try {
    return firstId(messagesOf(JSON.parse(body.toString('utf8'))));
  } catch {
    return null;
  }
}

/** Every refusal as JSON-RPC 2.0 with the platform code at `error.data.code` (docs/gateway.md). */
function gatewayErrors(deps: GatewayAppDeps): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const id = requestId(req.body);
    if ((err as { type?: unknown } | null)?.type === 'entity.too.large') {
      deps.metrics.refusals.inc({ code: 'request_too_large' });
      res
        .status(413)
        .type('application/json')
        .send(platformError(null, 'request_too_large', 'the request body is larger than 4 MiB'));
      return;
    }
    if (err instanceof SessionUnknown) {
      deps.metrics.refusals.inc({ code: 'session_unknown' });
      res
        .status(404)
        .type('application/json')
        .send(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: { code: -32001, message: 'Session not found' },
          }),
        );
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
    deps.logger.error({ err, method: req.method, path: req.path }, 'unhandled gateway error');
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
  app.use(
    pinoHttp({
      logger: deps.logger,
      serializers: {
        req: (req: IncomingMessage) => ({
          method: req.method,
          path: (req.url ?? '').split('?')[0],
        }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
      autoLogging: { ignore: (req) => ['/healthz', '/readyz'].includes(req.url ?? '') },
    }),
  );
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ok = await deps.ready().catch(() => false);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'not ready' });
  });

  const mcp = express.Router({ mergeParams: true });
  // Who calls first: an anonymous caller cannot make the gateway buffer a body.
  mcp.use(authenticate(deps.authenticator));
  mcp.use(express.raw({ type: () => true, limit: '4mb' }));
  mcp.all('/', async (req, res) => {
    if (!['POST', 'GET', 'DELETE'].includes(req.method)) {
      res.status(405).set('Allow', 'POST, GET, DELETE').end();
      return;
    }
    await proxy(deps, req, res, principalOf(res));
  });
  app.use('/servers/:server_id/mcp', mcp);
  app.use((req, _res, next) => {
    next(new ApiError('route_not_found', `no route for ${req.method} ${req.path}`));
  });
  app.use(gatewayErrors(deps));
  return app;
}
