import { ConfigError, loadApiConfig, readInt, type ApiConfig } from '../config.js';

/**
 * The gateway reads the API's configuration (it shares authentication, the credential store
 * and its keys, the MCP settings) plus where it listens: MCP clients on one port, Prometheus
 * on another (`/metrics` is not on the public port).
 */
export interface GatewayConfig extends ApiConfig {
  readonly gateway: {
    readonly host: string;
    readonly port: number;
    readonly metricsPort: number;
  };
}

const PORT = { min: 0, max: 65535 };

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  // The API's own listen address is not the gateway's: ignore it (in a pod it may even be a
  // Service link, AIPLANE_API_PORT=tcp://…, when the release's API Service is named so).
  const shared = { ...env };
  delete shared.AIPLANE_API_HOST;
  delete shared.AIPLANE_API_PORT;
  const api = loadApiConfig(shared);
  const problems: string[] = [];
  const gateway = {
    host: env.AIPLANE_GATEWAY_HOST || '127.0.0.1',
    port: readInt(env, 'AIPLANE_GATEWAY_PORT', 8090, PORT, problems),
    metricsPort: readInt(env, 'AIPLANE_GATEWAY_METRICS_PORT', 8091, PORT, problems),
  };
  // Compared only when both were read: a refused value stands for its default here.
  if (problems.length === 0 && gateway.port !== 0 && gateway.port === gateway.metricsPort) {
    problems.push('AIPLANE_GATEWAY_METRICS_PORT must differ from AIPLANE_GATEWAY_PORT');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({ ...api, gateway: Object.freeze(gateway) });
}
