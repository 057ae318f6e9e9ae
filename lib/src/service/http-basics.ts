import type { IncomingMessage } from 'node:http';
import type { IRouter } from 'express';
import { type HttpLogger, pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';

const PROBE_PATHS = ['/healthz', '/readyz'];

/** Path without the query string: a WebSocket `token` must never reach a log line. */
export function pathOnly(url: string | undefined): string {
  return (url ?? '').split('?')[0] ?? '';
}

/**
 * One log line per request with only method, path and status: no headers (Authorization,
 * X-Api-Key), no query, no body. Probes are not logged.
 */
export function requestLog(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    serializers: {
      req: (req: IncomingMessage) => ({ method: req.method, path: pathOnly(req.url) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    autoLogging: { ignore: (req) => PROBE_PATHS.includes(req.url ?? '') },
  });
}

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (`ready`, 503 when it answers false
 * or throws; always ready without it).
 */
export function probeRoutes(router: IRouter, ready?: () => Promise<boolean>): void {
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const ok = ready ? await ready().catch(() => false) : true;
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'not ready' });
  });
}
