import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { checkResourceAllowed } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import type {
  AuthorizationServerMetadata,
  OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '../upstream/index.js';
import { bearerChallenge, type BearerChallenge } from './challenge.js';
import { oauthFetch } from './oauth-fetch.js';
import { OAuthSetupError } from './oauth-failure.js';
import { oauthUrlProblem } from './oauth-url.js';

export interface DiscoveryOptions {
  /** The MCP endpoint (a remote address, or a managed workload's resolved address). */
  url: string;
  /** Dials the MCP server's own origin (the pinned fetch, or the in-cluster one). */
  serverFetch: FetchLike;
  /** Dials every other origin (authorization servers); checks addresses at dial time. */
  remoteFetch: FetchLike;
  /** Whether the metadata's `resource` must match `url` (remote servers, RFC 9728 §3.3). */
  checkResource: boolean;
  /**
   * The names the resource may be known by (RFC 8707); default the dialed `url`. A managed
   * server is dialed at a resolved address but known by its Service address or gateway URL.
   */
  resourceNames?: readonly string[];
  allowLoopback: boolean;
  /** Budget of each request. */
  timeoutMs: number;
}

/** How to authorize with an upstream: what the discovery found. */
export interface UpstreamAuthorization {
  /** The RFC 8707 resource indicator: the metadata's `resource`, verbatim. */
  resource: string;
  /** Scopes to ask for: the challenge's, else every scope the metadata lists. */
  scope: string | undefined;
  issuer: string;
  metadata: AuthorizationServerMetadata;
  /** `authorization_response_iss_parameter_supported` (RFC 9207): the callback must carry `iss`. */
  issParameterSupported: boolean;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'aiplane', version: '0.1.0' },
  },
};

/**
 * Sends the MCP server an unauthenticated `initialize` and answers its Bearer challenge, or
 * undefined when it answered anything else. A session it opened anyway is ended. Throws what
 * the fetch threw when there was no answer at all.
 */
export async function probeChallenge(
  url: string,
  fetch: FetchLike,
): Promise<BearerChallenge | undefined> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(INITIALIZE),
  });
  await res.body?.cancel().catch(() => undefined);
  const session = res.ok ? res.headers.get('mcp-session-id') : null;
  if (session !== null) {
    await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session } })
      .then((r) => r.body?.cancel())
      .catch(() => undefined);
  }
  return bearerChallenge(res);
}

/** Undefined when the resource server publishes no protected resource metadata (404). */
async function resourceMetadata(
  opts: DiscoveryOptions,
  challenge: BearerChallenge,
): Promise<OAuthProtectedResourceMetadata | undefined> {
  const origin = new URL(opts.url).origin;
  const statuses: number[] = [];
  const fetch: FetchLike = async (url, init) => {
    const chosen = new URL(url).origin === origin ? opts.serverFetch : opts.remoteFetch;
    const res = await oauthFetch(chosen, opts.timeoutMs)(url, init);
    statuses.push(res.status);
    return res;
  };
  try {
    return await discoverOAuthProtectedResourceMetadata(
      opts.url,
      { resourceMetadataUrl: challenge.resourceMetadataUrl },
      fetch,
    );
  } catch (error) {
    // Only a 404 at the well-known addresses means "none"; an address the challenge named
    // must answer.
    if (challenge.resourceMetadataUrl === undefined && statuses.at(-1) === 404) return undefined;
    throw error;
  }
}

/**
 * RFC 8414 §3.3: the metadata's `issuer` must be identical to the issuer it was fetched for,
 * or the endpoints it lists belong to another server (a mix-up). Compared as URLs, so only
 * what a URL parser treats as the same address (`https://as.example` and
 * `https://as.example/`) passes; a path with and without a trailing slash differ.
 */
function issuersMatch(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/**
 * The MCP authorization discovery (2025-11-25) after a Bearer challenge: protected resource
 * metadata (RFC 9728, from the challenge's `resource_metadata` or the well-known URIs), then
 * the first authorization server's metadata (RFC 8414, or OpenID Connect discovery), through
 * the SDK's helpers. Answers undefined when the server publishes no resource metadata (it
 * does not use OAuth); throws `OAuthSetupError` for what we refuse, and whatever the requests
 * threw.
 */
export async function discoverAuthorization(
  opts: DiscoveryOptions,
  challenge: BearerChallenge,
): Promise<UpstreamAuthorization | undefined> {
  const prm = await resourceMetadata(opts, challenge);
  if (prm === undefined) return undefined;
  if (
    opts.checkResource &&
    !(opts.resourceNames ?? [opts.url]).some((name) =>
      checkResourceAllowed({ requestedResource: name, configuredResource: prm.resource }),
    )
  ) {
    throw new OAuthSetupError('the protected resource metadata describes another resource');
  }
  const issuer = prm.authorization_servers?.[0];
  if (issuer === undefined) {
    throw new OAuthSetupError('the protected resource metadata names no authorization server');
  }
  const issuerProblem = oauthUrlProblem('issuer', issuer, opts);
  if (issuerProblem !== undefined) throw new OAuthSetupError(issuerProblem);
  const metadata = await discoverAuthorizationServerMetadata(issuer, {
    fetchFn: oauthFetch(opts.remoteFetch, opts.timeoutMs),
  });
  if (metadata === undefined) {
    throw new OAuthSetupError('no authorization server metadata could be read');
  }
  if (!issuersMatch(metadata.issuer, issuer)) {
    throw new OAuthSetupError("the authorization server's metadata names another issuer");
  }
  if (!metadata.code_challenge_methods_supported?.includes('S256')) {
    throw new OAuthSetupError('the authorization server does not support PKCE S256');
  }
  if (!metadata.response_types_supported.includes('code')) {
    throw new OAuthSetupError('the authorization server does not support the code flow');
  }
  for (const name of ['authorization_endpoint', 'token_endpoint'] as const) {
    const problem = oauthUrlProblem(name, metadata[name], opts);
    if (problem !== undefined) throw new OAuthSetupError(problem);
  }
  return {
    resource: prm.resource,
    scope: (challenge.scope ?? prm.scopes_supported?.join(' ')) || undefined,
    issuer: metadata.issuer,
    metadata,
    issParameterSupported:
      (metadata as Record<string, unknown>).authorization_response_iss_parameter_supported === true,
  };
}
