import type { Server } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@aiplane/lib';
import { upstreamBearer } from '../mcp/oauth/upstream-bearer.js';
import { listen, openPlatform } from '../platform.js';
import { createGatewayApp } from './app.js';
import type { GatewayConfig } from './config.js';
import { gatewayMetrics } from './metrics.js';
import { OfferedTools } from './offered-tools.js';
import { SessionBinder } from './session-id.js';

export interface RunningGateway {
  server: Server;
  port: number;
  /** Where `/metrics` is served (Prometheus), apart from the public port. */
  metricsPort: number;
  close(): Promise<void>;
}

/** Serves the MCP Gateway on config.gateway.host:port (0 picks a port). */
export async function startGateway(
  config: GatewayConfig,
  logger: Logger,
  opts: { kc?: KubeConfig } = {},
): Promise<RunningGateway> {
  // The server id names the server (in any namespace); its organization label and that
  // organization's tenant namespace say who may use it.
  const platform = await openPlatform(config, logger, opts.kc);
  const metrics = gatewayMetrics();
  const { credentials, dialers } = platform;
  const app = createGatewayApp({
    ...dialers,
    logger,
    servers: platform.servers,
    tenants: platform.tenants,
    bearer: (serverId, userId) =>
      upstreamBearer({ credentials, serverId, userId, fetch: dialers.remoteFetch, logger }),
    sessions: new SessionBinder(config.mcp.credentialKeys),
    offered: new OfferedTools({ ttlMs: 30_000, timeoutMs: config.mcp.upstreamTimeoutMs, logger }),
    metrics,
    authenticator: platform.authenticator,
    ready: () => platform.ready(),
  });
  const listening = await listen(app, config.gateway.host, config.gateway.port, logger, 'gateway');
  const metricsServer = await listen(
    (req, res) => {
      if (new URL(req.url ?? '/', 'http://metrics').pathname !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n'),
      );
    },
    config.gateway.host,
    config.gateway.metricsPort,
    logger,
    'gateway metrics',
  );
  return {
    ...listening,
    metricsPort: metricsServer.port,
    close: async () => {
      await listening.close();
      await metricsServer.close();
      await platform.close();
    },
  };
}
