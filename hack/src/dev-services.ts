import { join } from 'node:path';
import pg from 'pg';
import type { EnvironmentInfo } from './environment.js';
import { repoRoot } from './paths.js';
import { startProcess, type ManagedProcess } from './process.js';

export const DEV_PORTS = { api: 8080, operatorHealth: 8081 } as const;

async function ensureDatabase(url: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The API and the operator, from source, wired to the local environment (for `make dev`). */
export async function startDevServices(info: EnvironmentInfo): Promise<ManagedProcess[]> {
  const kc = info.keycloak;
  const tsx = (entry: string) => ['--import', 'tsx', join(repoRoot, entry)];
  const common = {
    ...process.env,
    KUBECONFIG: info.kubeconfig,
    AIPLANE_IDP_URL: kc.url,
    AIPLANE_IDP_REALM: kc.realm,
  };
  const api = startProcess({
    name: 'api',
    command: process.execPath,
    args: tsx('api/src/main.ts'),
    env: {
      ...common,
      AIPLANE_API_PORT: String(DEV_PORTS.api),
      AIPLANE_DATABASE_URL: await ensureDatabase(info.postgres.url, 'aiplane'),
      AIPLANE_OIDC_ISSUER: kc.issuer,
      AIPLANE_IDP_CLIENT_ID: kc.clients.api.clientId,
      AIPLANE_IDP_CLIENT_SECRET: kc.clients.api.clientSecret,
    },
    logFile: join(info.logs, 'api.log'),
  });
  const operator = startProcess({
    name: 'operator',
    command: process.execPath,
    args: tsx('operator/src/main.ts'),
    env: {
      ...common,
      AIPLANE_OPERATOR_HEALTH_PORT: String(DEV_PORTS.operatorHealth),
      AIPLANE_OPERATOR_IDP_CLIENT_ID: kc.clients.operator.clientId,
      AIPLANE_OPERATOR_IDP_CLIENT_SECRET: kc.clients.operator.clientSecret,
      AIPLANE_TENANT_DB_ADMIN_URL: info.postgres.url,
    },
    logFile: join(info.logs, 'operator.log'),
  });
  return [api, operator];
}

export function describeDevServices(info: EnvironmentInfo): string {
  return [
    `  api          http://127.0.0.1:${DEV_PORTS.api}  (try: curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:${DEV_PORTS.api}/v1/me)`,
    `  tenants      curl -H "Authorization: Bearer $TOKEN" -H content-type:application/json -d '{"slug":"demo","identity":{"enabled":true}}' http://127.0.0.1:${DEV_PORTS.api}/v1/admin/tenants`,
    `  operator     http://127.0.0.1:${DEV_PORTS.operatorHealth}/metrics`,
    `  logs         ${join(info.logs, 'api.log')}, ${join(info.logs, 'operator.log')}`,
  ].join('\n');
}
