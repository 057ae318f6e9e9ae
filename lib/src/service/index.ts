export { readInt, readServiceConfig, type ServiceConfig } from './config.js';
export { pathOnly, probeRoutes, requestLog } from './http-basics.js';
export { listen, openPlatform } from './platform.js';
export { routeTable, type MountedRoute } from './route-table.js';
export { runService } from './run-service.js';
export { isUuid, Nullable, validator } from './validation.js';
