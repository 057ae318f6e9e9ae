import { join } from 'node:path';
import type { EnvironmentInfo } from './environment.js';
import { repoRoot } from './paths.js';
import { startProcess, type ManagedProcess } from './process.js';
import { apiEnv, createDatabase, operatorEnv } from './service-env.js';

export const DEV_PORTS = { api: 8080, operatorHealth: 8081 } as const;

/** The API and the operator, from source, wired to the local environment (for `make dev`). */
export async function startDevServices(info: EnvironmentInfo): Promise<ManagedProcess[]> {
  const tsx = (entry: string) => ['--import', 'tsx', join(repoRoot, entry)];
  const api = startProcess({
    name: 'api',
    command: process.execPath,
    args: tsx('api/src/main.ts'),
    env: {
      ...process.env,
      ...apiEnv(info, await createDatabase(info, 'aiplane')),
      AIPLANE_API_PORT: String(DEV_PORTS.api),
    },
    logFile: join(info.logs, 'api.log'),
  });
  const operator = startProcess({
    name: 'operator',
    command: process.execPath,
    args: tsx('operator/src/main.ts'),
    env: {
      ...process.env,
      ...operatorEnv(info),
      AIPLANE_OPERATOR_HEALTH_PORT: String(DEV_PORTS.operatorHealth),
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
