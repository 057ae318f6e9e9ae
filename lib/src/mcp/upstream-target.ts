import { mcpWorkloadUrl, type McpServer } from '@aiplane/crds';
import { ApiError } from '../errors/api-error.js';
import type { FetchLike } from './upstream/index.js';

/** How the platform dials upstream MCP servers. */
export interface UpstreamDialers {
  /** Remote servers and authorization servers: addresses checked at dial time. */
  remoteFetch: FetchLike;
  /** Managed workloads (cluster-internal). */
  workloadFetch: FetchLike;
  /** Maps a workload's in-cluster address to the one to dial (identity in a cluster). */
  resolveWorkload: (url: string) => string;
}

/** An upstream's address and the fetch that dials it. */
export interface UpstreamTarget {
  url: string;
  fetch: FetchLike;
}

/**
 * Where and how to reach a server: a remote one at its stored address through the pinned
 * fetch; a managed one, once ready, at its Service address computed from the spec (not
 * whatever `status.url` says) through the workload fetch. 503 mcp_server_not_ready before.
 */
export function upstreamTarget(server: McpServer, d: UpstreamDialers): UpstreamTarget {
  if (server.spec.runtime === 'remote') {
    return { url: server.spec.address ?? '', fetch: d.remoteFetch };
  }
  if (server.status?.ready !== true) {
    throw new ApiError('mcp_server_not_ready', 'the managed server is not serving yet; retry');
  }
  return { url: d.resolveWorkload(mcpWorkloadUrl(server)), fetch: d.workloadFetch };
}
