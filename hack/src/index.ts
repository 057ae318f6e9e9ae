export { LocalControlPlane, type ControlPlaneOptions } from './control-plane.js';
export { LocalEnvironment, type EnvironmentInfo } from './environment.js';
export {
  LocalKeycloak,
  keycloakPaths,
  type KeycloakOptions,
  type KeycloakPaths,
} from './keycloak.js';
export {
  bootstrapKeycloak,
  type BootstrapOptions,
  type DevUser,
  type KeycloakInfo,
} from './keycloak-bootstrap.js';
export {
  KeycloakAdminApi,
  KeycloakAdminError,
  type AdminCredentials,
} from './keycloak-admin-api.js';
export { DEV_USERS, type DevUserName, USERS } from './keycloak-realm.js';
export { ensurePermissionGroups, setOrganizationPermissions } from './keycloak-org-permissions.js';
export {
  passwordGrant,
  TokenError,
  type PasswordGrantTarget,
  type TokenResponse,
} from './keycloak-token.js';
export { LocalPostgres, type PostgresInfo, postgresInstall } from './postgres.js';
export {
  binaryPaths,
  cacheDir,
  miniLmDir,
  repoRoot,
  speechHelperPath,
  versions,
  type BinaryPaths,
} from './paths.js';
export { freePort, StopWaiting, waitFor } from './ports.js';
export { apiEnv, createDatabase, operatorEnv } from './service-env.js';
export {
  startBundled,
  startFromSource,
  startProcess,
  type ManagedProcess,
  type StartOptions,
} from './process.js';
export {
  type McpTestOAuth,
  type McpTestServer,
  type McpTestServerOptions,
  type McpTestTool,
  startMcpTestServer,
  initializeRequest,
} from './mcp-test-server.js';
export {
  type OAuthTestAuthorizationServer,
  type OAuthTestAuthorizationServerOptions,
  type OAuthTestRequests,
  startOAuthTestAuthorizationServer,
} from './oauth-test-authorization-server.js';
export { jwtTokenVerifier } from './jwt-token-verifier.js';
export {
  type Mcp2026TestServer,
  type Mcp2026TestServerOptions,
  type Mcp2026TestTool,
  startMcp2026TestServer,
} from './mcp-2026-test-server.js';
export { COMPONENT_RULES, rbacTemplates } from './rbac-manifests.js';
export {
  type OpenAiTestBackend,
  type OpenAiTestBackendOptions,
  type OpenAiTestRequest,
  startOpenAiTestBackend,
} from './openai-test-backend.js';
export {
  type EmbeddingsTestBackend,
  type EmbeddingsTestBackendOptions,
  type EmbeddingsTestRequest,
  startEmbeddingsTestBackend,
} from './embeddings-test-backend.js';
export {
  type LiteLlmMockModel,
  type LiteLlmMockToolCall,
  type LiteLlmProxy,
  type LiteLlmProxyOptions,
  liteLlmConfig,
  liteLlmPaths,
  startLiteLlmProxy,
} from './litellm-proxy.js';
export { type S3Server, type S3ServerOptions, startS3Server } from './s3-server.js';
export {
  type SttTestBackend,
  type SttTestBackendOptions,
  type SttTestRequest,
  startSttTestBackend,
} from './stt-test-backend.js';
