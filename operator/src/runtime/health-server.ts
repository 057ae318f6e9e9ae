import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export interface HealthServerOptions {
  /** Interface to bind: `0.0.0.0` in a pod (kubelet probes, Prometheus), `127.0.0.1` in tests. */
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Readiness: informers synced and, with leader election, leading or standing by healthily. */
  ready: () => boolean | Promise<boolean>;
  registry: Registry;
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

/** `/healthz` (the process answers), `/readyz` (the ready callback) and `/metrics`. */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'method not allowed\n');
    const path = new URL(req.url ?? '/', 'http://health').pathname;
    switch (path) {
      case '/healthz':
        return send(res, 200, 'ok\n');
      case '/readyz':
        return (await options.ready()) ? send(res, 200, 'ok\n') : send(res, 503, 'not ready\n');
      case '/metrics':
        return send(res, 200, await options.registry.metrics(), options.registry.contentType);
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
