export { ClaimLoop, type ClaimLoopOptions } from './claim-loop.js';
export { type EventStream, openEventStream } from './event-stream.js';
export { readInt, readServiceConfig, type ServiceConfig } from './config.js';
export { pathOnly, probeRoutes, requestLog } from './http-basics.js';
export { jsonBodyParser, jsonTextRefusal, refuseNulInUrl } from './hostile-input.js';
export {
  type DocumentOptions,
  type OpenApiDocument,
  openApiDocument,
  openApiPath,
  SECURITY_SCHEMES,
} from './openapi-document.js';
export {
  authenticatedRouter,
  type DocumentedRoute,
  documentedRoutes,
  type HttpMethod,
  operation,
  type OperationHandler,
  type OperationInput,
  type OperationSpec,
  type ResponseSpec,
} from './operation.js';
export { listen, openPlatform } from './platform.js';
export { routeTable, type MountedRoute, walkRoutes, type WalkedRoute } from './route-table.js';
export { runService } from './run-service.js';
export { isUuid, ListOf, Nullable, validator } from './validation.js';
