export { attachWebSockets, createApp, type AppDeps } from './app.js';
export { ConfigError, loadApiConfig, type ApiConfig } from './config.js';
export { startApi, type RunningApi, type StartApiOptions } from './server.js';
export { ERROR_CODES, type ErrorCode } from '@aiplane/lib/errors';
export { API_KEY_PREFIX } from '@aiplane/lib/auth';
export type { TenantRecord } from './tenants/record.js';
export type { ServerCondition, ServerRecord, ServerStatusRecord } from './mcp/server-record.js';
export { API_RULES, API_TENANT_RULES } from './rbac.js';
export { OrganizationRows } from './tenants/organization-rows.js';
export { podSchedulingOf, type ResourceProfile } from './inference/resource-profiles.js';
export { bundledAssetPath, DOCS_ASSETS, packageDir } from './docs/assets.js';
export type { Model } from './inference/model-catalogue.js';
export {
  type FileProcessor,
  FileRefused,
  PlainTextProcessor,
  type ProcessableFile,
  type ProcessingResult,
} from './knowledge/files-processor.js';
