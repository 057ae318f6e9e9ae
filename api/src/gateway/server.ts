import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import {
  GROUP,
  TENANT_LIFECYCLE_PLURAL,
  VERSION,
  workloadResolver,
  type McpServer,
  type TenantLifecycle,
} from '@aiplane/crds';
import type { Logger } from '@aiplane/lib';
import { authenticatorFromConfig } from '../auth/authenticator-from-config.js';
import { ResourceCache } from '../kube/resource-cache.js';
import { upstreamBearer } from '../mcp/oauth/upstream-bearer.js';
import { MCP_SERVERS_PATH } from '../mcp/server-store.js';
import { createPinnedFetch, createWorkloadFetch } from '../mcp/upstream/index.js';
import { ApiKeyStore } from '../store/api-key-store.js';
import { CredentialStore } from '../store/credential-store.js';
import { connect, migrate } from '../store/database.js';
import { createGatewayApp } from './app.js';
import type { GatewayConfig } from './config.js';
import { gatewayMetrics } from './metrics.js';
import { OfferedTools } from './offered-tools.js';
import { SessionBinder } from './session-id.js';

export interface RunningGateway {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Serves the MCP Gateway on config.gateway.host:port (0 picks a port). */
export async function startGateway(
  config: GatewayConfig,
  logger: Logger,
  opts: { kc?: KubeConfig } = {},
): Promise<RunningGateway> {
  const kc =
    opts.kc ??
    (() => {
      const k = new KubeConfig();
      k.loadFromDefault();
      return k;
    })();
  const db = connect(config.databaseUrl);
  await migrate(db);
  const servers = new ResourceCache<McpServer>(kc, MCP_SERVERS_PATH, logger);
  // The server id names the server (in any namespace); its organization label says who may use it.
  servers.start();
  // Which namespace is each organization's: a server counts only in its organization's one.
  const tenants = new ResourceCache<TenantLifecycle>(
    kc,
    `/apis/${GROUP}/${VERSION}/${TENANT_LIFECYCLE_PLURAL}`,
    logger,
  );
  tenants.start();
  const credentials = new CredentialStore(db, config.mcp.credentialKeys);
  const allowLoopback = config.mcp.allowLoopbackUpstreams;
  if (allowLoopback) {
    logger.warn(
      'AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS is on: remote MCP servers may be on loopback',
    );
  }
  const remoteFetch = createPinnedFetch({ allowLoopback });
  const workloadFetch = createWorkloadFetch();
  const app = createGatewayApp({
    logger,
    servers,
    tenants,
    bearer: (serverId, userId) =>
      upstreamBearer({ credentials, serverId, userId, fetch: remoteFetch, logger }),
    remoteFetch,
    workloadFetch,
    resolveWorkload: workloadResolver(config.mcp.workloadHost),
    sessions: new SessionBinder(config.mcp.credentialKeys),
    offered: new OfferedTools({ ttlMs: 30_000, timeoutMs: config.mcp.upstreamTimeoutMs, logger }),
    metrics: gatewayMetrics(),
    headersTimeoutMs: config.mcp.upstreamTimeoutMs,
    authenticator: authenticatorFromConfig(config, new ApiKeyStore(db), logger),
    ready: async () => {
      await db.raw('select 1');
      return servers.hasSynced() && tenants.hasSynced();
    },
  });
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.gateway.port, config.gateway.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ host: config.gateway.host, port }, 'gateway listening');
  return {
    server,
    port,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await servers.stop();
      await tenants.stop();
      await remoteFetch.close();
      await workloadFetch.close();
      await db.destroy();
    },
  };
}
