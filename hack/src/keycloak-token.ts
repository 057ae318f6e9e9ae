/** A token endpoint's success reply (RFC 6749 §5.1, plus OpenID Connect's id_token). */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  refresh_expires_in?: number;
  id_token?: string;
  scope?: string;
}

/** A token endpoint's error reply (RFC 6749 §5.2): `error` is e.g. `invalid_grant`. */
export class TokenError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string | undefined,
    username: string,
  ) {
    super(`password grant for ${username} failed: ${status} ${error} (${description ?? ''})`);
  }
}

/** What a password grant needs to know about the realm; a `KeycloakInfo` has it. */
export interface PasswordGrantTarget {
  tokenEndpoint: string;
  clients: { portal: { clientId: string } };
}

/**
 * Resource-owner password grant through the public portal client (enabled for dev and
 * test only). `scope` defaults to `openid`, so an id_token comes back too.
 */
export async function passwordGrant(
  target: PasswordGrantTarget,
  user: { username: string; password: string },
  opts: { scope?: string } = {},
): Promise<TokenResponse> {
  const res = await fetch(target.tokenEndpoint, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: target.clients.portal.clientId,
      username: user.username,
      password: user.password,
      scope: opts.scope ?? 'openid',
    }),
  });
  const body = (await res.json()) as Partial<TokenResponse> & {
    error?: string;
    error_description?: string;
  };
  if (!res.ok || !body.access_token) {
    throw new TokenError(
      res.status,
      body.error ?? 'unknown',
      body.error_description,
      user.username,
    );
  }
  return body as TokenResponse;
}
