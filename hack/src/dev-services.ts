import { join } from 'node:path';
import type { EnvironmentInfo } from './environment.js';
import { bundleImage } from './image/bundle.js';
import { startBundled, type ManagedProcess } from './process.js';
import { apiEnv, createDatabase, operatorEnv } from './service-env.js';

export const DEV_PORTS = {
  api: 8080,
  operatorHealth: 8081,
  gateway: 8090,
  gatewayMetrics: 8091,
} as const;

/**
 * The API, the MCP gateway and the operator wired to the local environment (for `make dev`), run
 * as production runs them: compiled JavaScript, the image's bundle (`node api.mjs`), built into
 * the run directory at each start (issue 21: no TypeScript loader outside the tests).
 */
export async function startDevServices(info: EnvironmentInfo): Promise<ManagedProcess[]> {
  const bundle = join(info.dir, 'bundle');
  await bundleImage(bundle);
  const entry = (name: 'api' | 'gateway' | 'operator') => join(bundle, `${name}.mjs`);
  const shared = {
    ...process.env,
    ...apiEnv(info, await createDatabase(info, 'aiplane')),
    AIPLANE_GATEWAY_PUBLIC_URL: `http://127.0.0.1:${DEV_PORTS.gateway}`,
    // Model-installer downloads land under the run directory (docs/adr/0025).
    AIPLANE_MODEL_STORE_DIR: join(info.dir, 'models'),
    AIPLANE_FILES_DIR: join(info.dir, 'files'),
  };
  const api = startBundled({
    name: 'api',
    file: entry('api'),
    env: {
      ...shared,
      AIPLANE_API_PORT: String(DEV_PORTS.api),
      // The portal's return page of MCP OAuth linking (docs/adr/0040).
      AIPLANE_MCP_OAUTH_REDIRECT_URL: `http://127.0.0.1:${DEV_PORTS.api}/portal/mcp/oauth/return`,
    },
    logFile: join(info.logs, 'api.log'),
  });
  const gateway = startBundled({
    name: 'gateway',
    file: entry('gateway'),
    env: {
      ...shared,
      AIPLANE_GATEWAY_PORT: String(DEV_PORTS.gateway),
      AIPLANE_GATEWAY_METRICS_PORT: String(DEV_PORTS.gatewayMetrics),
    },
    logFile: join(info.logs, 'gateway.log'),
  });
  const operator = startBundled({
    name: 'operator',
    file: entry('operator'),
    env: {
      ...process.env,
      ...operatorEnv(info),
      AIPLANE_OPERATOR_HEALTH_PORT: String(DEV_PORTS.operatorHealth),
    },
    logFile: join(info.logs, 'operator.log'),
  });
  return [api, gateway, operator];
}

export function describeDevServices(info: EnvironmentInfo): string {
  return [
    `  portal       http://127.0.0.1:${DEV_PORTS.api}/portal/  (sign in as ${info.keycloak.users.admin.username} or ${info.keycloak.users.member.username}; passwords: node -p "require('${join(info.dir, 'env.json')}').keycloak.users.admin.password")`,
    `  api          http://127.0.0.1:${DEV_PORTS.api}  (try: curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:${DEV_PORTS.api}/v1/me)`,
    `  tenants      curl -H "Authorization: Bearer $TOKEN" -H content-type:application/json -d '{"slug":"demo","identity":{"enabled":true}}' http://127.0.0.1:${DEV_PORTS.api}/v1/admin/tenants`,
    `  mcp servers  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:${DEV_PORTS.api}/v1/mcp/servers`,
    `  gateway      http://127.0.0.1:${DEV_PORTS.gateway}/servers/<server id>/mcp  (Streamable HTTP; metrics at http://127.0.0.1:${DEV_PORTS.gatewayMetrics}/metrics)`,
    `  operator     http://127.0.0.1:${DEV_PORTS.operatorHealth}/metrics`,
    `  logs         ${['api', 'gateway', 'operator'].map((n) => join(info.logs, `${n}.log`)).join(', ')}`,
  ].join('\n');
}
