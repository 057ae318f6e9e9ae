/** The API's configuration: read from the environment once, validated, frozen. */
export interface ApiConfig {
  readonly host: string;
  readonly port: number;
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

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const problems: string[] = [];
  const str = (name: string, fallback?: string): string => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback === undefined) problems.push(`${name} is required`);
    return fallback ?? '';
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return n;
  };
  const url = (name: string, fallback?: string): string => {
    const v = str(name, fallback);
    if (v && !/^https?:\/\/[^\s]+$/.test(v)) problems.push(`${name} must be an http(s) URL`);
    return v.replace(/\/+$/, '');
  };
  const logLevel = str('AIPLANE_LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`AIPLANE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const issuer = url('AIPLANE_OIDC_ISSUER');
  const config: ApiConfig = {
    host: str('AIPLANE_API_HOST', '127.0.0.1'),
    port: int('AIPLANE_API_PORT', 8080, 0, 65535),
    logLevel,
    databaseUrl: str('AIPLANE_DATABASE_URL'),
    oidc: {
      issuer,
      audience: str('AIPLANE_OIDC_AUDIENCE', 'aiplane-api'),
      jwksUri: url('AIPLANE_OIDC_JWKS_URI', `${issuer}/protocol/openid-connect/certs`),
      clockToleranceSeconds: int('AIPLANE_OIDC_CLOCK_TOLERANCE_SECONDS', 30, 0, 300),
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
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...config,
    oidc: Object.freeze(config.oidc),
    identityProvider: Object.freeze(config.identityProvider),
  });
}
