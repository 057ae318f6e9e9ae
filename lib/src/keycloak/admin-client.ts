/** Raised when Keycloak cannot be asked (network, timeout, 5xx, bad client credentials). */
export class KeycloakUnavailable extends Error {}

/** A non-2xx answer other than 404, with its status; the body is not kept (it may echo input). */
export class KeycloakRequestFailed extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface KeycloakAdminOptions {
  /** Base URL, e.g. http://127.0.0.1:8080 (no /admin, no /realms). */
  url: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * Keycloak's admin REST API for one realm, through a confidential client's service account
 * (client-credentials grant; the token is reused until shortly before it expires and dropped
 * on a 401).
 */
export class KeycloakAdminClient {
  private token?: { value: string; expiresAt: number };
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: KeycloakAdminOptions) {
    this.fetch = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /** `/admin/realms/<realm>` + path. */
  realmPath(path: string): string {
    return `/admin/realms/${encodeURIComponent(this.options.realm)}${path}`;
  }

  /** GET; undefined on 404. */
  async get<T>(path: string): Promise<T | undefined> {
    const res = await this.request('GET', path);
    if (res.status === 404) return undefined;
    return (await res.json()) as T;
  }

  /** A request on the realm's admin API; throws on anything but 2xx and 404. */
  async request(method: string, path: string, body?: unknown): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.accessToken();
      let res: Response;
      try {
        res = await this.fetch(`${this.options.url}${this.realmPath(path)}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (err) {
        throw new KeycloakUnavailable(`identity provider unreachable: ${(err as Error).message}`);
      }
      if (res.status === 401 && attempt === 0) {
        this.token = undefined; // expired or revoked early: get a new one once
        continue;
      }
      if (res.ok || res.status === 404) return res;
      await res.body?.cancel();
      if (res.status >= 500 || res.status === 401) {
        throw new KeycloakUnavailable(
          `identity provider answered ${res.status} to ${method} ${path}`,
        );
      }
      throw new KeycloakRequestFailed(
        res.status,
        `identity provider answered ${res.status} to ${method} ${path}`,
      );
    }
  }

  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.expiresAt) return this.token.value;
    const url = `${this.options.url}/realms/${encodeURIComponent(this.options.realm)}/protocol/openid-connect/token`;
    let res: Response;
    try {
      res = await this.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: this.options.clientId,
          client_secret: this.options.clientSecret,
        }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new KeycloakUnavailable(`identity provider unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new KeycloakUnavailable(`client-credentials grant answered ${res.status}`);
    }
    const body = (await res.json()) as { access_token: string; expires_in: number };
    // Renew 30 s (or a third of the lifetime, if shorter) before expiry.
    const margin = Math.min(30, body.expires_in / 3) * 1000;
    this.token = {
      value: body.access_token,
      expiresAt: Date.now() + body.expires_in * 1000 - margin,
    };
    return body.access_token;
  }
}
