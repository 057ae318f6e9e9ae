import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { loadGatewayConfig, startGateway, type RunningGateway } from '@aiplane/api';
import { createLogger } from '@aiplane/lib';
import { apiEnv } from '@aiplane/hack';
import { awaitReady, type TestApi } from './api-helpers.js';
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
  const destination = createWriteStream(join(environment().controlPlane.logDir, `${name}.log`));
  const gateway = await startGateway(config, createLogger({ level: 'debug', name, destination }), {
    kc: environment().controlPlane.kubeConfig(),
  });
  const url = `http://127.0.0.1:${gateway.port}`;
  try {
    await awaitReady(`${url}/readyz`);
  } catch (err) {
    await gateway.close();
    throw err;
  }
  return { ...gateway, url };
}

/** A raw JSON-RPC `initialize` request, as a bare client sends it. */
export function initializeRequest(protocolVersion = '2025-11-25', id = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}
