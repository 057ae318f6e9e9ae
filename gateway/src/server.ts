import type { Server } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { type Logger, startHealthServer } from '@aiplane/lib';
import { upstreamBearer } from '@aiplane/lib/mcp';
import { listen, openPlatform } from '@aiplane/lib/service';
import { createGatewayApp } from './app.js';
import type { GatewayConfig } from './config.js';
import { GatewayLimiter } from './limits.js';
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
  const platform = await openPlatform(config, logger, opts.kc, {
    connectTimeoutMs: config.gateway.upstream.connectTimeoutMs,
  });
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
    upstreamLimits: config.gateway.upstream,
    authenticator: platform.authenticator,
    ready: () => platform.ready(),
    limiter: new GatewayLimiter(config.gatewayLimits),
  });
  const listening = await listen(app, config.gateway.host, config.gateway.port, logger, 'gateway');
  // Prometheus only: the probes are on the public port.
  const metricsServer = await startHealthServer({
    host: config.gateway.host,
    port: config.gateway.metricsPort,
    registry: metrics.registry,
    logger,
  });
  logger.info({ host: config.gateway.host, port: metricsServer.port }, 'gateway metrics listening');
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
