import { ConfigError, loadApiConfig, type ApiConfig } from '../config.js';

/**
 * The gateway reads the API's configuration (it shares authentication, the credential store
 * and its keys, the MCP settings) plus where it listens.
 */
export interface GatewayConfig extends ApiConfig {
  readonly gateway: { readonly host: string; readonly port: number };
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  // The API's own listen address is not the gateway's: ignore it (in a pod it may even be a
  // Service link, AIPLANE_API_PORT=tcp://…, when the release's API Service is named so).
  const shared = { ...env };
  delete shared.AIPLANE_API_HOST;
  delete shared.AIPLANE_API_PORT;
  const api = loadApiConfig(shared);
  const raw = env.AIPLANE_GATEWAY_PORT;
  const port = raw === undefined || raw === '' ? 8090 : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError([
      `AIPLANE_GATEWAY_PORT must be an integer from 0 to 65535, got "${raw}"`,
    ]);
  }
  return Object.freeze({
    ...api,
    gateway: Object.freeze({ host: env.AIPLANE_GATEWAY_HOST || '127.0.0.1', port }),
  });
}
