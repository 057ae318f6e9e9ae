import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { GROUP, TENANT_LIFECYCLE_PLURAL, VERSION, type TenantLifecycle } from '@aiplane/crds';
import type { Logger } from '@aiplane/lib';
import { ResourceCache } from './kube/resource-cache.js';
import { attachWebSockets, createApp } from './app.js';
import { Authenticator } from './auth/authenticator.js';
import { CachedIdentityProvider } from './auth/identity-provider.js';
import { JwtVerifier } from './auth/jwt-verifier.js';
import { KeycloakIdentityProvider } from './auth/keycloak.js';
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
  const idp = config.identityProvider;
  const apiKeys = new ApiKeyStore(db);
  const deps = {
    logger,
    kc,
    tenants,
    apiKeys,
    authenticator: new Authenticator({
      jwt: new JwtVerifier(config.oidc),
      apiKeys,
      identityProvider: new CachedIdentityProvider(
        new KeycloakIdentityProvider({
          url: idp.url,
          realm: idp.realm,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
        }),
        idp.accessCacheSeconds * 1000,
      ),
      logger,
    }),
    ready: async () => {
      await db.raw('select 1');
      return tenants.hasSynced();
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
      await db.destroy();
    },
  };
}
