/** What the API tells the portal at start (`GET /portal/config.json`, api/src/portal). */
export interface PortalConfig {
  /** The OpenID Connect issuer the portal signs in with. */
  issuer: string;
  /** The realm's public client (authorization code + PKCE). */
  client_id: string;
  /** The scope asked for: every organization claim, so the tenant selector has them all. */
  scope: string;
}

export async function loadConfig(): Promise<PortalConfig> {
  const res = await fetch(`${import.meta.env.BASE_URL}config.json`, { cache: 'no-store' });
  if (!res.ok) throw new Error(`the portal configuration could not be read (HTTP ${res.status})`);
  return (await res.json()) as PortalConfig;
}
