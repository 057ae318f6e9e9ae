export { attachWebSockets, createApp, type AppDeps } from './app.js';
export { ConfigError, loadApiConfig, type ApiConfig } from './config.js';
export { startApi, type RunningApi, type StartApiOptions } from './server.js';
export { ERROR_CODES, type ErrorCode } from './errors/codes.js';
export { API_KEY_PREFIX } from './auth/api-key-format.js';
export type { TenantRecord } from './routes/tenant-record.js';
export { loadGatewayConfig, type GatewayConfig } from './gateway/config.js';
export { startGateway, type RunningGateway } from './gateway/server.js';
export { API_RULES, GATEWAY_RULES } from './rbac.js';
