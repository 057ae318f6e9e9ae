const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Why an authorization server URL may not be used, or undefined when it may: OAuth endpoints
 * carry client secrets, codes and tokens, so they must be https (OAuth 2.1 §1.5). Plain http
 * is accepted only for loopback hosts when loopback upstreams are allowed (tests). Where the
 * URL may be dialed is checked separately, at dial time (the pinned fetch).
 */
export function oauthUrlProblem(
  name: string,
  url: string | undefined,
  opts: { allowLoopback: boolean },
): string | undefined {
  if (url === undefined) return `the authorization server names no ${name}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `the authorization server's ${name} is not a URL`;
  }
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:' && opts.allowLoopback && LOOPBACK.test(parsed.hostname)) {
    return undefined;
  }
  return `the authorization server's ${name} must use https`;
}
