import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bootstrapKeycloak,
  freePort,
  KeycloakAdminApi,
  repoRoot,
  type KeycloakInfo,
} from '@aiplane/hack';
import { ApiClient } from './api-client.js';
import type { Cluster } from './cluster.js';
import {
  checkContext,
  NAMESPACE,
  PLATFORM_IMAGE,
  RELEASE,
  SERVICES,
  type E2eConfig,
} from './config.js';
import { run } from './exec.js';
import { helmInstallArgs } from './helm-args.js';
import { log } from './log.js';
import {
  ADMIN_DATABASE,
  API_DATABASE,
  chartSecrets,
  generateSecrets,
  infraSecrets,
  postgresUrl,
  secretValues,
  TENANT_DATABASE_SECRET,
  type GeneratedSecrets,
} from './platform-secrets.js';
import { PortForward } from './port-forward.js';
import { secrets } from './redact.js';
import { Tokens } from './tokens.js';
import { waitUntil } from './wait-until.js';

/** The realm the Keycloak bootstrap creates and the chart's identityProvider.realm. */
export const REALM = 'aiplane';
/**
 * The issuer every token carries: KC_HOSTNAME (e2e/manifests/keycloak.yaml) fixes it to the
 * in-cluster address, the chart's default identityProvider.url, however the token was fetched.
 */
export const IN_CLUSTER_ISSUER = `http://${SERVICES.keycloak.name}:${SERVICES.keycloak.port}/realms/${REALM}`;

export const MANIFESTS = join(repoRoot, 'e2e', 'manifests');
export const CHART = join(repoRoot, 'charts', 'aiplane');

/** The installed platform as the suite reaches it: port-forwards, clients and secrets. */
export interface Platform {
  config: E2eConfig;
  cluster: Cluster;
  secrets: GeneratedSecrets;
  keycloak: { url: string; info: KeycloakInfo; admin: KeycloakAdminApi };
  tokens: Tokens;
  api: ApiClient;
  /** `gateway.publicUrl`: the gateway's port-forward. */
  gatewayBase: string;
  /** Superuser URL of the maintenance database, over the PostgreSQL port-forward. */
  postgresAdminUrl: string;
  /** Superuser URL of the API's database, over the PostgreSQL port-forward. */
  apiDatabaseUrl: string;
  stop(): void;
}

/** Everything the suite started (port-forwards), so `after` can stop it even mid-install. */
const started: PortForward[] = [];

export function stopPortForwards(): void {
  for (const pf of started.splice(0)) pf.stop();
}

function kubectlEnv(config: E2eConfig): NodeJS.ProcessEnv {
  return { ...process.env, KUBECONFIG: config.kubeconfig };
}

async function forward(
  config: E2eConfig,
  service: { name: string; port: number },
  localPort?: number,
): Promise<PortForward> {
  const pf = await PortForward.start({
    kubectl: config.kubectl,
    kubeconfig: config.kubeconfig,
    namespace: NAMESPACE,
    target: `svc/${service.name}`,
    remotePort: service.port,
    ...(localPort !== undefined ? { localPort } : {}),
    log,
  });
  started.push(pf);
  log(`forwarding ${pf.url} to svc/${service.name}:${service.port}`);
  return pf;
}

async function httpStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  await res.body?.cancel();
  return res.status;
}

/**
 * Installs PostgreSQL, Keycloak and the aiplane release into `aiplane-system` of the kind
 * cluster, and answers how to reach them. Every secret is random, made here, remembered for
 * redaction, and handed to the cluster through the Kubernetes API.
 */
export async function installPlatform(
  env: NodeJS.ProcessEnv,
  config: E2eConfig,
  cluster: Cluster,
): Promise<Platform> {
  checkContext(cluster.currentContext(), env);
  if ((await cluster.namespacePhase(NAMESPACE)) !== null) {
    throw new Error(
      `namespace ${NAMESPACE} exists from an earlier run: start from a fresh cluster (e2e/run-kind.sh recreates one that holds it)`,
    );
  }
  const generated = generateSecrets();
  for (const value of secretValues(generated)) secrets.remember(value);
  const kubectl = (args: string[], timeoutMs?: number) =>
    run(config.kubectl, args, { env: kubectlEnv(config), timeoutMs });

  log(`creating namespace ${NAMESPACE}, PostgreSQL and Keycloak`);
  await cluster.createNamespace(NAMESPACE);
  await cluster.createSecrets(NAMESPACE, infraSecrets(generated));
  await kubectl([
    'apply',
    '--namespace',
    NAMESPACE,
    '-f',
    join(MANIFESTS, 'postgres.yaml'),
    '-f',
    join(MANIFESTS, 'keycloak.yaml'),
  ]);
  for (const [name, timeout] of [
    ['postgres', '5m'],
    ['keycloak', '10m'],
  ] as const) {
    await kubectl(
      ['rollout', 'status', '--namespace', NAMESPACE, `deployment/${name}`, `--timeout=${timeout}`],
      15 * 60_000,
    );
    log(`${name} is available`);
  }

  const kcForward = await forward(config, SERVICES.keycloak);
  await waitUntil(() => httpStatus(`${kcForward.url}/realms/master`), {
    what: 'Keycloak to answer through its port-forward',
    until: (status) => status === 200,
    timeoutMs: 120_000,
    intervalMs: 1000,
  });
  log('bootstrapping the Keycloak realm (clients, roles, dev users, organization acme)');
  const info = await bootstrapKeycloak({
    url: kcForward.url,
    admin: generated.keycloakAdmin,
    passwords: generated.devUserPasswords,
  });
  secrets.remember(info.clients.api.clientSecret);
  secrets.remember(info.clients.operator.clientSecret);
  if (info.issuer !== IN_CLUSTER_ISSUER) {
    throw new Error(
      `Keycloak issues tokens for ${info.issuer}, not ${IN_CLUSTER_ISSUER}: KC_HOSTNAME in e2e/manifests/keycloak.yaml did not take effect, so the API would refuse every token`,
    );
  }
  // The discovery document names in-cluster endpoints; the suite asks over the port-forward.
  const tokens = new Tokens(
    {
      tokenEndpoint: `${kcForward.url}/realms/${REALM}/protocol/openid-connect/token`,
      clients: info.clients,
    },
    info.users,
  );
  const kcAdmin = new KeycloakAdminApi(kcForward.url, generated.keycloakAdmin);

  log('creating the Secrets the chart reads');
  await cluster.createSecrets(
    NAMESPACE,
    chartSecrets(generated, {
      apiClientSecret: info.clients.api.clientSecret,
      operatorClientSecret: info.clients.operator.clientSecret,
    }),
  );

  const gatewayPort = await freePort();
  const gatewayBase = `http://127.0.0.1:${gatewayPort}`;
  const helmHome = mkdtempSync(join(tmpdir(), 'aiplane-e2e-helm-'));
  log(`helm install ${RELEASE} (image ${PLATFORM_IMAGE.repository}:${PLATFORM_IMAGE.tag})`);
  await run(
    config.helm,
    helmInstallArgs({
      release: RELEASE,
      chart: CHART,
      namespace: NAMESPACE,
      image: PLATFORM_IMAGE,
      gatewayPublicUrl: gatewayBase,
      tenantDatabaseSecret: TENANT_DATABASE_SECRET,
      timeout: '10m',
    }),
    {
      env: {
        ...kubectlEnv(config),
        HELM_CACHE_HOME: join(helmHome, 'cache'),
        HELM_CONFIG_HOME: join(helmHome, 'config'),
        HELM_DATA_HOME: join(helmHome, 'data'),
      },
      timeoutMs: 12 * 60_000,
    },
  );
  log('the release is installed and every Deployment is available');

  const apiForward = await forward(config, SERVICES.api);
  await forward(config, SERVICES.gateway, gatewayPort);
  const pgForward = await forward(config, SERVICES.postgres);
  const api = new ApiClient(apiForward.url);
  // Proves the whole chain of trust: Keycloak's issuer, audience and keys as the API sees them.
  await waitUntil(
    async () => {
      const r = await api.call('GET', '/v1/admin/tenants', { token: await tokens.get('admin') });
      return r.status;
    },
    {
      what: 'the API to accept a platform admin token (GET /v1/admin/tenants → 200)',
      until: (status) => status === 200,
      timeoutMs: 120_000,
      intervalMs: 2000,
    },
  );

  return {
    config,
    cluster,
    secrets: generated,
    keycloak: { url: kcForward.url, info, admin: kcAdmin },
    tokens,
    api,
    gatewayBase,
    postgresAdminUrl: postgresUrl(
      generated.postgresPassword,
      ADMIN_DATABASE,
      '127.0.0.1',
      pgForward.localPort,
    ),
    apiDatabaseUrl: postgresUrl(
      generated.postgresPassword,
      API_DATABASE,
      '127.0.0.1',
      pgForward.localPort,
    ),
    stop: stopPortForwards,
  };
}
