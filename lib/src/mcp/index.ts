export { isAllowed } from './allowlist.js';
export { organizationNamespace } from './organization-namespace.js';
export { mayUseServer, serverAccessDenied } from './server-access.js';
export { type UpstreamDialers, upstreamTarget, type UpstreamTarget } from './upstream-target.js';
export {
  createPinnedFetch,
  DialRefusedError,
  createWorkloadFetch,
  type FetchLike,
  type LeanRequestInit,
  type LeanResponse,
  listAllTools,
  listUpstreamTools,
  type PinnedFetch,
  UpstreamError,
} from './upstream/index.js';
export { discoverAuthorization, probeChallenge } from './oauth/discovery.js';
export {
  oauthErrorCode,
  OAuthSetupError,
  type OAuthStep,
  oauthUpstreamError,
  redactSecrets,
} from './oauth/oauth-failure.js';
export { oauthFetch } from './oauth/oauth-fetch.js';
export { clientInformation, ensureClient } from './oauth/registration.js';
export { serializeTokenSet, tokenSetFrom } from './oauth/token-set.js';
export { upstreamBearer } from './oauth/upstream-bearer.js';
