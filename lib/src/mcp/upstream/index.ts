export {
  createPinnedFetch,
  createWorkloadFetch,
  DialRefusedError,
  type FetchLike,
  type LeanRequestInit,
  type LeanResponse,
  type PinnedFetch,
  type PinnedFetchOptions,
  RedirectRefusedError,
} from './pinned-fetch.js';
export {
  connectUpstream,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  listAllTools,
  listUpstreamTools,
  type ListUpstreamToolsOptions,
  MAX_TOOL_PAGES,
  type UpstreamConnection,
  type UpstreamConnectOptions,
  type UpstreamTool,
} from './upstream-client.js';
export {
  classifyUpstreamFailure,
  type FailureContext,
  redactError,
  UpstreamError,
  type UpstreamErrorReason,
} from './upstream-error.js';
