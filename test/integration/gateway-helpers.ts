import { loadGatewayConfig, startGateway, type RunningGateway } from '@aiplane/gateway';
import { apiEnv } from '@aiplane/hack';
import { readyUrl, runLogger, type TestApi } from './api-helpers.js';
import { environment } from './harness.js';

export interface TestGateway extends RunningGateway {
  url: string;
}

/**
 * The real gateway, in this process, on the API's database, logging to the run's log directory,
 * ready (its caches synced: it has no read-through for tenants).
 */
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
  const gateway = await startGateway(config, runLogger(name), {
    kc: environment().controlPlane.kubeConfig(),
  });
  return { ...gateway, url: await readyUrl(gateway) };
}

/** A JSON-RPC error answer. */
export type RpcError = {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string; data?: { code: string } };
};

export { initializeRequest } from '@aiplane/hack';
