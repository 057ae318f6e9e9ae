import type { IncomingMessage, ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { IRouter } from 'express';
import type { Logger } from '../logger.js';
import { operation } from './operation.js';

const PROBE_PATHS = ['/healthz', '/readyz'];

/** Path without the query string: a WebSocket `token` must never reach a log line. */
export function pathOnly(url: string | undefined): string {
  return (url ?? '').split('?')[0] ?? '';
}

/**
 * One log line per request with only method, path, status and time: no headers
 * (Authorization, X-Api-Key), no query, no body. Probes are not logged. Written here rather
 * than with pino-http, which built a child logger (with redaction) for every request whether
 * or not the line would be written: measurable on the messages API's hot path (ADR 0024).
 */
export function requestLog(
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    if (PROBE_PATHS.includes(req.url ?? '')) {
      next();
      return;
    }
    // Express rewrites req.url inside its routers; the path as received is read now.
    const path = pathOnly(req.url);
    const method = req.method;
    const started = Date.now();
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      if (!logger.isLevelEnabled('info')) return;
      const status = res.statusCode;
      logger.info(
        { req: { method, path }, res: { status }, responseTime: Date.now() - started },
        !res.writableFinished
          ? 'request aborted'
          : status >= 500
            ? 'request errored'
            : 'request completed',
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
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
