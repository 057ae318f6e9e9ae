import {
  type IdentityProvider,
  IdentityProviderUnavailable,
  type UserAccess,
} from './identity-provider.js';

export interface KeycloakOptions {
  url: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  fetch?: typeof fetch;
}

/**
 * Keycloak's admin REST API through a confidential client's service account
 * (client-credentials grant; the token is reused until shortly before it expires).
 */
export class KeycloakIdentityProvider implements IdentityProvider {
  private token?: { value: string; expiresAt: number };
  private readonly fetch: typeof fetch;

  constructor(private readonly options: KeycloakOptions) {
    this.fetch = options.fetch ?? fetch;
  }

  async userAccess(userId: string): Promise<UserAccess | undefined> {
    const base = `/admin/realms/${encodeURIComponent(this.options.realm)}`;
    const id = encodeURIComponent(userId);
    const user = await this.get<{ id: string; username: string; enabled: boolean }>(
      `${base}/users/${id}`,
    );
    if (!user) return undefined;
    const [roles, orgs] = await Promise.all([
      this.get<{ name: string }[]>(`${base}/users/${id}/role-mappings/realm/composite`),
      this.get<{ id: string; alias: string }[]>(
        `${base}/organizations/members/${id}/organizations`,
      ),
    ]);
    return {
      userId: user.id,
      username: user.username,
      enabled: user.enabled,
      roles: new Set((roles ?? []).map((r) => r.name)),
      organizations: (orgs ?? []).map((o) => ({ id: o.id, alias: o.alias })),
    };
  }

  private async get<T>(path: string): Promise<T | undefined> {
    const token = await this.accessToken();
    let res: Response;
    try {
      res = await this.fetch(`${this.options.url}${path}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: AbortSignal.timeout(5000),
      });
    } catch (err) {
      throw new IdentityProviderUnavailable(
        `identity provider unreachable: ${(err as Error).message}`,
      );
    }
    if (res.status === 404) return undefined;
    if (!res.ok) {
      if (res.status === 401) this.token = undefined;
      throw new IdentityProviderUnavailable(`identity provider answered ${res.status} for ${path}`);
    }
    return (await res.json()) as T;
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
        signal: AbortSignal.timeout(5000),
      });
    } catch (err) {
      throw new IdentityProviderUnavailable(
        `identity provider unreachable: ${(err as Error).message}`,
      );
    }
    if (!res.ok)
      throw new IdentityProviderUnavailable(`client-credentials grant answered ${res.status}`);
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
