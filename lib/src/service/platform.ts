import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { Knex } from 'knex';
import { workloadResolver, type McpServer, type TenantLifecycle } from '@aiplane/crds';
import type { Logger } from '../logger.js';
import type { Authenticator } from '../auth/authenticator.js';
import { authenticatorFromConfig } from '../auth/authenticator-from-config.js';
import type { ServiceConfig } from './config.js';
import { ResourceCache } from '../kube/resource-cache.js';
import { MCP_SERVERS_PATH, TENANT_LIFECYCLES_PATH } from '../kube/resource-paths.js';
import type { UpstreamDialers } from '../mcp/upstream-target.js';
import { createPinnedFetch, createWorkloadFetch } from '../mcp/upstream/index.js';
import { ApiKeyStore } from '../auth/api-key-store.js';
import { CredentialStore } from '../store/credential-store.js';
import { connect, migrate } from '../store/database.js';

/**
 * What the API and the gateway both stand on: the database (migrated), the watch caches of
 * tenants and MCP servers, the credential and API-key stores, the authenticator and the
 * upstream dialers. Opened once per process; `close` releases all of it.
 */
export interface Platform {
  kc: KubeConfig;
  db: Knex;
  tenants: ResourceCache<TenantLifecycle>;
  servers: ResourceCache<McpServer>;
  credentials: CredentialStore;
  apiKeys: ApiKeyStore;
  authenticator: Authenticator;
  dialers: UpstreamDialers;
  /** The database answers and both caches have synced. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export async function openPlatform(
  config: ServiceConfig,
  logger: Logger,
  kubeConfig?: KubeConfig,
  /** How long dialing an upstream may take (the gateway's own setting; undici's 10 s else). */
  dial: { connectTimeoutMs?: number } = {},
): Promise<Platform> {
  const kc =
    kubeConfig ??
    (() => {
      // KUBECONFIG, or the in-cluster service account.
      const k = new KubeConfig();
      k.loadFromDefault();
      return k;
    })();
  const db = connect(config.databaseUrl);
  await migrate(db);
  const tenants = new ResourceCache<TenantLifecycle>(kc, TENANT_LIFECYCLES_PATH, logger);
  const servers = new ResourceCache<McpServer>(kc, MCP_SERVERS_PATH, logger);
  tenants.start();
  servers.start();
  if (config.mcp.allowLoopbackUpstreams) {
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
  const remoteFetch = createPinnedFetch({
    allowLoopback: config.mcp.allowLoopbackUpstreams,
    ...dial,
  });
  const workloadFetch = createWorkloadFetch(dial);
  const apiKeys = new ApiKeyStore(db);
  await apiKeys.listen(config.databaseUrl, logger);
  const credentials = new CredentialStore(db, config.mcp.credentialKeys);
  await credentials.listen(config.databaseUrl, logger);
  return {
    kc,
    db,
    tenants,
    servers,
    credentials,
    apiKeys,
    authenticator: authenticatorFromConfig(config, apiKeys, logger),
    dialers: {
      remoteFetch,
      workloadFetch,
      resolveWorkload: workloadResolver(config.mcp.workloadHost),
    },
    ready: async () => {
      await db.raw('select 1');
      return tenants.hasSynced() && servers.hasSynced();
    },
    close: async () => {
      await Promise.all([tenants.stop(), servers.stop()]);
      await remoteFetch.close();
      await workloadFetch.close();
      await apiKeys.close();
      await credentials.close();
      await db.destroy();
    },
  };
}

export interface Listening {
  server: Server;
  port: number;
  /** Stops accepting, drops open connections. */
  close(): Promise<void>;
}

/** Serves `handler` on host:port (0 picks a port) and logs where. */
export async function listen(
  handler: RequestListener | Server,
  host: string,
  port: number,
  logger: Logger,
  what: string,
): Promise<Listening> {
  const server = typeof handler === 'function' ? createServer(handler) : handler;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  logger.info({ host, port: bound }, `${what} listening`);
  return {
    server,
    port: bound,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
