import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import {
  GROUP,
  TENANT_LIFECYCLE_PLURAL,
  VERSION,
  type McpServer,
  type TenantLifecycle,
  workloadResolver,
} from '@aiplane/crds';
import { checkRemoteAddress, type Logger } from '@aiplane/lib';
import { ApiError } from './errors/api-error.js';
import { AvailableTools } from './mcp/available-tools.js';
import { McpOAuthLinking } from './mcp/oauth/oauth-linking.js';
import { organizationNamespace } from './mcp/organization-namespace.js';
import { MCP_SERVERS_PATH, McpServerStore } from './mcp/server-store.js';
import { createPinnedFetch, createWorkloadFetch } from './mcp/upstream/index.js';
import { AgentStore } from './store/agent-store.js';
import { CredentialStore } from './store/credential-store.js';
import { OAuthStateStore } from './store/oauth-state-store.js';
import { authenticatorFromConfig } from './auth/authenticator-from-config.js';
import { ResourceCache } from './kube/resource-cache.js';
import { attachWebSockets, createApp } from './app.js';
import type { ApiConfig } from './config.js';
import { ApiKeyStore } from './store/api-key-store.js';
import { connect, migrate } from './store/database.js';

export interface RunningApi {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** KUBECONFIG, or the in-cluster service account. */
function defaultKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

/** Connects, migrates, and serves the API on config.host:config.port (0 picks a port). */
export async function startApi(
  config: ApiConfig,
  logger: Logger,
  opts: { kc?: KubeConfig } = {},
): Promise<RunningApi> {
  const kc = opts.kc ?? defaultKubeConfig();
  const db = connect(config.databaseUrl);
  await migrate(db);
  const tenants = new ResourceCache<TenantLifecycle>(
    kc,
    `/apis/${GROUP}/${VERSION}/${TENANT_LIFECYCLE_PLURAL}`,
    logger,
  );
  tenants.start();
  const serverCache = new ResourceCache<McpServer>(kc, MCP_SERVERS_PATH, logger);
  serverCache.start();
  const servers = new McpServerStore(kc, serverCache, logger);
  const credentials = new CredentialStore(db, config.mcp.credentialKeys);
  const agents = new AgentStore(db);
  const allowLoopback = config.mcp.allowLoopbackUpstreams;
  if (allowLoopback) {
    logger.warn(
      'AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS is on: remote MCP servers may be on loopback',
    );
  }
  if (config.mcp.workloadHost !== null) {
    logger.warn(
      { host: config.mcp.workloadHost },
      'AIPLANE_MCP_WORKLOAD_HOST is set: managed MCP workloads are dialed at this host (local/test only)',
    );
  }
  const remoteFetch = createPinnedFetch({ allowLoopback });
  const workloadFetch = createWorkloadFetch();
  const resolveWorkload = workloadResolver(config.mcp.workloadHost);
  const apiKeys = new ApiKeyStore(db);
  const deps = {
    logger,
    kc,
    tenants,
    apiKeys,
    mcp: {
      servers,
      credentials,
      gatewayBase: config.mcp.gatewayPublicUrl,
      tools: new AvailableTools({
        credentials,
        remoteFetch,
        workloadFetch,
        resolveWorkload,
        timeoutMs: config.mcp.upstreamTimeoutMs,
        logger,
      }),
      checkAddress: async (address: string) => {
        const check = await checkRemoteAddress(address, { allowLoopback });
        if (!check.ok) throw new ApiError('mcp_server_address_invalid', check.message);
      },
      onDeleted: (organizationId: string, serverId: string) =>
        agents.forgetServer(organizationId, serverId),
    },
    mcpOAuth: new McpOAuthLinking({
      credentials,
      states: new OAuthStateStore(db, config.mcp.credentialKeys),
      remoteFetch,
      workloadFetch,
      resolveWorkload,
      gatewayBase: config.mcp.gatewayPublicUrl,
      redirectUrl: config.mcp.oauthRedirectUrl,
      allowLoopback,
      timeoutMs: config.mcp.upstreamTimeoutMs,
      logger,
    }),
    agents: {
      agents,
      foreignServerIds: async (organizationId: string, ids: readonly string[]) => {
        const namespace = organizationNamespace(tenants, organizationId);
        if (namespace === undefined) return [...ids];
        const found = await servers.findMany(namespace, ids);
        return ids.filter((id) => !found.has(id));
      },
    },
    authenticator: authenticatorFromConfig(config, apiKeys, logger),
    ready: async () => {
      await db.raw('select 1');
      return tenants.hasSynced() && serverCache.hasSynced();
    },
  };
  const server = createServer(createApp(deps));
  attachWebSockets(server, deps);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ host: config.host, port }, 'api listening');
  return {
    server,
    port,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await tenants.stop();
      await serverCache.stop();
      await remoteFetch.close();
      await workloadFetch.close();
      await db.destroy();
    },
  };
}
