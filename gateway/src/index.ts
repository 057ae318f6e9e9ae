export { loadGatewayConfig, type GatewayConfig } from './config.js';
export { startGateway, type RunningGateway } from './server.js';
export { GATEWAY_RULES } from './rbac.js';
