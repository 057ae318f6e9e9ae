import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';

/** What an upstream's OAuth challenge says (RFC 6750 §3, RFC 9728 §5.1). */
export interface BearerChallenge {
  /** `resource_metadata`: where its protected resource metadata is. */
  resourceMetadataUrl?: URL;
  /** `scope`: the scopes it asks for. */
  scope?: string;
}

/** A `Bearer` auth-scheme among the challenges of a WWW-Authenticate header. */
const BEARER_SCHEME = /(?:^|,)\s*bearer(?:\s|,|$)/i;

/**
 * The Bearer challenge of an unauthenticated request's answer: a 401 whose WWW-Authenticate
 * names the Bearer scheme, with its `resource_metadata` and `scope` (read by the SDK).
 * Undefined for anything else (an answer, another status, another scheme).
 */
export function bearerChallenge(res: Response): BearerChallenge | undefined {
  const header = res.headers.get('www-authenticate');
  if (res.status !== 401 || header === null || !BEARER_SCHEME.test(header)) return undefined;
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
  return {
    ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    ...(scope === undefined ? {} : { scope }),
  };
}
