import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { loadGatewayConfig, startGateway, type RunningGateway } from '@aiplane/api';
import { createLogger } from '@aiplane/lib';
import { apiEnv } from '@aiplane/hack';
import type { TestApi } from './api-helpers.js';
import { environment } from './harness.js';

export interface TestGateway extends RunningGateway {
  url: string;
}

/** The real gateway, in this process, on the API's database, logging to the run's log directory. */
export async function startTestGateway(
  api: TestApi,
  name: string,
  env: Record<string, string> = {},
): Promise<TestGateway> {
  const config = loadGatewayConfig({
    ...apiEnv(environment().info(), api.databaseUrl),
    AIPLANE_GATEWAY_PORT: '0',
    AIPLANE_GATEWAY_METRICS_PORT: '0',
    AIPLANE_LOG_LEVEL: 'debug',
    ...env,
  });
  const destination = createWriteStream(join(environment().controlPlane.logDir, `${name}.log`));
  const gateway = await startGateway(config, createLogger({ level: 'debug', name, destination }), {
    kc: environment().controlPlane.kubeConfig(),
  });
  return { ...gateway, url: `http://127.0.0.1:${gateway.port}` };
}
