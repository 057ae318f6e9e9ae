import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';

/** What `/metrics` serves: a prom-client `Registry` is one. */
export interface MetricsRegistry {
  /** The registry's text exposition format. */
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface HealthServerOptions {
  /** Interface to bind: `0.0.0.0` in a pod (kubelet probes, Prometheus), `127.0.0.1` in tests. */
  host: string;
  /** 0 picks a free port. */
  port: number;
  /**
   * Readiness, e.g. informers synced and, with leader election, leading or standing by
   * healthily. Without it the server is a metrics port: `/healthz` and `/readyz` answer 404.
   */
  ready?: () => boolean | Promise<boolean>;
  registry: MetricsRegistry;
  logger?: Logger;
}

export interface HealthServer {
  /** The bound port (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: string, type = 'text/plain'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/**
 * `/metrics` (the registry), and with a ready callback `/healthz` (the process answers) and
 * `/readyz` (the callback); anything else 404, any method but GET and HEAD 405.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const { ready } = options;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'method not allowed\n');
    const path = new URL(req.url ?? '/', 'http://health').pathname;
    if (path === '/metrics')
      return send(res, 200, await options.registry.metrics(), options.registry.contentType);
    if (ready === undefined) return send(res, 404, 'not found\n');
    switch (path) {
      case '/healthz':
        return send(res, 200, 'ok\n');
      case '/readyz':
        return (await ready()) ? send(res, 200, 'ok\n') : send(res, 503, 'not ready\n');
      default:
        return send(res, 404, 'not found\n');
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      options.logger?.error({ err, url: req.url }, 'health endpoint failed');
      if (!res.headersSent) send(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
