import type { IncomingMessage } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { IRouter } from 'express';
import { type HttpLogger, pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';
import { operation } from './operation.js';

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

const ProbeStatus = Type.Object(
  { status: Type.Union([Type.Literal('ok'), Type.Literal('not ready')]) },
  { title: 'ProbeStatus' },
);

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (`ready`, 503 when it answers false
 * or throws; always ready without it).
 */
export function probeRoutes(router: IRouter, ready?: () => Promise<boolean>): void {
  operation(
    router,
    {
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      summary: 'Liveness: the process answers',
      tags: ['probes'],
      public: true,
      responses: { 200: { description: 'The process is up.', schema: ProbeStatus } },
    },
    (_req, res) => {
      res.json({ status: 'ok' });
    },
  );
  operation(
    router,
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      summary: 'Readiness: dependencies reachable, caches synced',
      tags: ['probes'],
      public: true,
      responses: {
        200: { description: 'Ready for traffic.', schema: ProbeStatus },
        503: { description: 'Not ready yet (or any more).', schema: ProbeStatus },
      },
    },
    async (_req, res) => {
      const ok = ready ? await ready().catch(() => false) : true;
      res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'not ready' });
    },
  );
}
