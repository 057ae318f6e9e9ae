import { type Keyring, parseKeyring } from '../crypto/index.js';

/**
 * What the API and the gateway both read from the environment: logging, the database,
 * token verification, the MCP settings and the identity provider. Each process adds where it
 * listens (ApiConfig, GatewayConfig) and throws one ConfigError naming every problem.
 */
export interface ServiceConfig {
  readonly logLevel: string;
  /** PostgreSQL for API data (API keys, credentials, …). */
  readonly databaseUrl: string;
  readonly oidc: {
    /** Expected `iss` of access tokens, e.g. https://idp.example.com/realms/aiplane. */
    readonly issuer: string;
    /** Expected `aud`. */
    readonly audience: string;
    /** JWKS address; default `<issuer>/protocol/openid-connect/certs`. */
    readonly jwksUri: string;
    readonly clockToleranceSeconds: number;
  };
  /** MCP management (docs/adr/0008-mcp-servers.md). */
  readonly mcp: {
    /** Seals per-user upstream credentials: `<kid>:<base64 32-byte key>[,…]`, active first. */
    readonly credentialKeys: Keyring;
    /** `{gateway_base}`: the gateway's public address; null when the deployment publishes none. */
    readonly gatewayPublicUrl: string | null;
    /**
     * TEST ONLY (default false): lets remote servers on 127.0.0.0/8 and ::1 pass the address
     * rules, so tests can register an MCP server running on loopback. Never in a deployment.
     */
    readonly allowLoopbackUpstreams: boolean;
    /**
     * LOCAL/TEST ONLY: dial managed workloads at this host (keeping port and path) instead of
     * their in-cluster Service name; the local environment has no cluster DNS or kubelet.
     */
    readonly workloadHost: string | null;
    /** How long the API waits for an upstream MCP server (handshake and listing). */
    readonly upstreamTimeoutMs: number;
    /**
     * The portal page an upstream's authorization server returns the browser to after OAuth
     * linking (the registered `redirect_uri`), used exactly as given; null when the
     * deployment publishes none (OAuth linking then answers 503 mcp_oauth_not_configured).
     */
    readonly oauthRedirectUrl: string | null;
  };
  /** The identity provider's admin API, used to re-check an API key owner's current roles. */
  readonly identityProvider: {
    readonly kind: 'keycloak';
    readonly url: string;
    readonly realm: string;
    readonly clientId: string;
    readonly clientSecret: string;
    /** How long a looked-up user's roles are trusted (≤ 60 s: a removed role stops a key within a minute). */
    readonly accessCacheSeconds: number;
  };
}

/**
 * The integer variable `name`, from `min` to `max`: `fallback` when it is unset or empty;
 * anything else adds a problem naming the variable and the value, and answers `fallback`.
 */
export function readInt(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  range: { min: number; max: number },
  problems: string[],
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < range.min || n > range.max) {
    problems.push(`${name} must be an integer from ${range.min} to ${range.max}, got "${raw}"`);
    return fallback;
  }
  return n;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** The shared settings; each problem is added to `problems` (the caller throws once). */
export function readServiceConfig(env: NodeJS.ProcessEnv, problems: string[]): ServiceConfig {
  const str = (name: string, fallback?: string): string => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback === undefined) problems.push(`${name} is required`);
    return fallback ?? '';
  };
  const int = (name: string, fallback: number, min: number, max: number): number =>
    readInt(env, name, fallback, { min, max }, problems);
  const url = (name: string, fallback?: string): string => {
    const v = str(name, fallback);
    if (v && !/^https?:\/\/[^\s]+$/.test(v)) problems.push(`${name} must be an http(s) URL`);
    return v.replace(/\/+$/, '');
  };
  const bool = (name: string): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '' || raw === 'false') return false;
    if (raw === 'true') return true;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return false;
  };
  const keyring = (name: string): Keyring | undefined => {
    const spec = str(name);
    if (spec === '') return undefined;
    try {
      return parseKeyring(spec);
    } catch (err) {
      // KeyringError messages name entries by position and key id, never key material.
      problems.push(`${name}: ${(err as Error).message}`);
      return undefined;
    }
  };
  /** An absolute http(s) URL without fragment, kept exactly as written (no normalization). */
  const redirectUrl = (name: string): string | null => {
    const raw = env[name];
    if (raw === undefined || raw === '') return null;
    let parsed: URL | undefined;
    try {
      parsed = new URL(raw);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || /\s/.test(raw)) {
      problems.push(`${name} must be an absolute http(s) URL`);
    } else if (raw.includes('#') || parsed.username !== '' || parsed.password !== '') {
      problems.push(`${name} must have no fragment and no user name or password`);
    }
    return raw;
  };
  const credentialKeys = keyring('AIPLANE_CREDENTIAL_KEYS');
  const logLevel = str('AIPLANE_LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`AIPLANE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const issuer = url('AIPLANE_OIDC_ISSUER');
  const config: ServiceConfig = {
    logLevel,
    databaseUrl: str('AIPLANE_DATABASE_URL'),
    oidc: {
      issuer,
      audience: str('AIPLANE_OIDC_AUDIENCE', 'aiplane-api'),
      jwksUri: url('AIPLANE_OIDC_JWKS_URI', `${issuer}/protocol/openid-connect/certs`),
      clockToleranceSeconds: int('AIPLANE_OIDC_CLOCK_TOLERANCE_SECONDS', 30, 0, 300),
    },
    mcp: {
      credentialKeys: credentialKeys as Keyring,
      gatewayPublicUrl: env.AIPLANE_GATEWAY_PUBLIC_URL ? url('AIPLANE_GATEWAY_PUBLIC_URL') : null,
      allowLoopbackUpstreams: bool('AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS'),
      workloadHost: env.AIPLANE_MCP_WORKLOAD_HOST || null,
      upstreamTimeoutMs: int('AIPLANE_MCP_UPSTREAM_TIMEOUT_MS', 10_000, 100, 120_000),
      oauthRedirectUrl: redirectUrl('AIPLANE_MCP_OAUTH_REDIRECT_URL'),
    },
    identityProvider: {
      kind: 'keycloak',
      url: url('AIPLANE_IDP_URL'),
      realm: str('AIPLANE_IDP_REALM', 'aiplane'),
      clientId: str('AIPLANE_IDP_CLIENT_ID', 'aiplane-api'),
      clientSecret: str('AIPLANE_IDP_CLIENT_SECRET'),
      accessCacheSeconds: int('AIPLANE_IDP_ACCESS_CACHE_SECONDS', 30, 0, 60),
    },
  };
  // Without keys keyring() has added a problem, so the caller throws before using them.
  return Object.freeze({
    ...config,
    oidc: Object.freeze(config.oidc),
    mcp: Object.freeze(config.mcp),
    identityProvider: Object.freeze(config.identityProvider),
  });
}
