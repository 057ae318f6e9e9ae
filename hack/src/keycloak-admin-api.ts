/** Thrown for an admin REST reply that is neither success nor an expected 404. */
export class KeycloakAdminError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    detail: string,
  ) {
    super(`keycloak admin ${method} ${path} answered ${status}: ${detail.slice(0, 300)}`);
  }
}

export interface AdminCredentials {
  username: string;
  password: string;
}

/**
 * Keycloak's admin REST API (`/admin/realms/...`) as the master realm's admin, through
 * `admin-cli`'s password grant; the token is renewed before it expires (60 s by default).
 * Paths are relative to `/admin/realms`. The bootstrap needs this because it creates the
 * realm itself; the API and the operator use @aiplane/lib's KeycloakAdminClient, which speaks
 * for one realm through a service account.
 */
export class KeycloakAdminApi {
  private token?: { value: string; expiresAt: number };

  constructor(
    private readonly url: string,
    private readonly credentials: AdminCredentials,
    /** Told of every request that writes (anything but GET), before it is sent. */
    private readonly onWrite?: (method: string, path: string) => void,
  ) {}

  /** GET that answers undefined on 404. */
  async find<T>(path: string): Promise<T | undefined> {
    const res = await this.send('GET', path);
    if (res.status === 404) return undefined;
    return (await (await this.check('GET', path, res)).json()) as T;
  }

  async get<T>(path: string): Promise<T> {
    const res = await this.send('GET', path);
    return (await (await this.check('GET', path, res)).json()) as T;
  }

  /** POST; answers the id at the end of the `Location` header of a 201, if any. */
  async post(path: string, body: unknown): Promise<string | undefined> {
    const res = await this.send('POST', path, body);
    await this.check('POST', path, res);
    await res.body?.cancel();
    return res.headers.get('location')?.split('/').pop();
  }

  async put(path: string, body: unknown): Promise<void> {
    const res = await this.send('PUT', path, body);
    await this.check('PUT', path, res);
    await res.body?.cancel();
  }

  async delete(path: string, body?: unknown): Promise<void> {
    const res = await this.send('DELETE', path, body);
    await this.check('DELETE', path, res);
    await res.body?.cancel();
  }

  private async check(method: string, path: string, res: Response): Promise<Response> {
    if (res.ok) return res;
    // Keep only Keycloak's own message ({"errorMessage": …} or {"error": …}), never the body.
    let detail = res.statusText;
    try {
      const body = (await res.json()) as { errorMessage?: unknown; error?: unknown };
      const message = body.errorMessage ?? body.error;
      if (typeof message === 'string') detail = message;
    } catch {
      // not JSON
    }
    throw new KeycloakAdminError(method, path, res.status, detail);
  }

  private async send(method: string, path: string, body?: unknown): Promise<Response> {
    if (method !== 'GET') this.onWrite?.(method, path);
    const headers: Record<string, string> = { authorization: `Bearer ${await this.bearer()}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${this.url}/admin/realms${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  private async bearer(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now() + 10_000) return this.token.value;
    const res = await fetch(`${this.url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'admin-cli',
        username: this.credentials.username,
        password: this.credentials.password,
      }),
    });
    const reply = (await res.json()) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
    };
    if (!res.ok || !reply.access_token) {
      throw new Error(`keycloak admin login failed: ${res.status} ${reply.error ?? ''}`.trim());
    }
    this.token = {
      value: reply.access_token,
      expiresAt: Date.now() + (reply.expires_in ?? 60) * 1000,
    };
    return this.token.value;
  }
}
