import { randomBytes } from 'node:crypto';
import { DEV_USERS, type DevUserName } from '@aiplane/hack';
import { SERVICES } from './config.js';

/** Random secrets of one run; nothing is reused between runs and nothing is printed. */
export interface GeneratedSecrets {
  /** PostgreSQL superuser `postgres`. */
  postgresPassword: string;
  /** Keycloak's bootstrap admin (master realm). */
  keycloakAdmin: { username: string; password: string };
  /** `AIPLANE_CREDENTIAL_KEYS`: `k1:<base64 of 32 random bytes>`. */
  credentialKeys: string;
  /** Passwords of the dev users the Keycloak bootstrap creates. */
  devUserPasswords: Record<DevUserName, string>;
  /** The static credential a member links for the MCP server (what the gateway injects). */
  mcpCredential: string;
}

/** A password of URL-safe characters only, so it needs no escaping in a postgres:// URL. */
export function randomPassword(random: (n: number) => Buffer = randomBytes): string {
  return random(24).toString('base64url');
}

export function generateSecrets(random: (n: number) => Buffer = randomBytes): GeneratedSecrets {
  const password = () => randomPassword(random);
  return {
    postgresPassword: password(),
    keycloakAdmin: { username: 'e2e-admin', password: password() },
    credentialKeys: `k1:${random(32).toString('base64')}`,
    devUserPasswords: Object.fromEntries(DEV_USERS.map((u) => [u, password()])) as Record<
      DevUserName,
      string
    >,
    mcpCredential: `e2e-${password()}`,
  };
}

/** Every value of `s` that must never be printed. */
export function secretValues(s: GeneratedSecrets): string[] {
  const key = s.credentialKeys.slice(s.credentialKeys.indexOf(':') + 1);
  return [
    s.postgresPassword,
    s.keycloakAdmin.password,
    s.credentialKeys,
    key,
    s.mcpCredential,
    ...Object.values(s.devUserPasswords),
  ];
}

/** A Secret to create: name and string data. */
export interface SecretSpec {
  name: string;
  stringData: Record<string, string>;
}

/** Read by e2e/manifests: PostgreSQL's and Keycloak's own credentials. */
export const INFRA_SECRET_NAMES = {
  postgres: 'postgres-auth',
  keycloakAdmin: 'keycloak-bootstrap-admin',
} as const;

/** The Secrets e2e/manifests/postgres.yaml and keycloak.yaml read (before they are applied). */
export function infraSecrets(s: GeneratedSecrets): SecretSpec[] {
  return [
    { name: INFRA_SECRET_NAMES.postgres, stringData: { password: s.postgresPassword } },
    {
      name: INFRA_SECRET_NAMES.keycloakAdmin,
      stringData: { username: s.keycloakAdmin.username, password: s.keycloakAdmin.password },
    },
  ];
}

/** The API's database; PostgreSQL creates it at first start (POSTGRES_DB in postgres.yaml). */
export const API_DATABASE = 'aiplane';
/** The tenant database admin connects to the maintenance database. */
export const ADMIN_DATABASE = 'postgres';

/** `postgres://postgres:<password>@<host>:<port>/<database>` for the superuser. */
export function postgresUrl(
  password: string,
  database: string,
  host: string = SERVICES.postgres.name,
  port: number = SERVICES.postgres.port,
): string {
  const url = new URL(`postgres://${host}:${port}/${database}`);
  url.username = 'postgres';
  url.password = password;
  return url.toString();
}

/** Name of the Secret with the tenant databases' admin URL (set as tenantDatabase.existingSecret). */
export const TENANT_DATABASE_SECRET = 'aiplane-tenant-database';

/**
 * The Secrets the chart reads (charts/aiplane/values.yaml: database, credentialKeys,
 * identityProvider, tenantDatabase), under the chart's default names and keys; the suite sets
 * only `tenantDatabase.existingSecret`, whose default is empty.
 */
export function chartSecrets(
  s: GeneratedSecrets,
  clients: { apiClientSecret: string; operatorClientSecret: string },
): SecretSpec[] {
  return [
    {
      name: 'aiplane-database',
      stringData: { url: postgresUrl(s.postgresPassword, API_DATABASE) },
    },
    { name: 'aiplane-credential-keys', stringData: { keys: s.credentialKeys } },
    {
      name: 'aiplane-identity-provider',
      stringData: {
        'api-client-secret': clients.apiClientSecret,
        'operator-client-secret': clients.operatorClientSecret,
      },
    },
    {
      name: TENANT_DATABASE_SECRET,
      stringData: { 'admin-url': postgresUrl(s.postgresPassword, ADMIN_DATABASE) },
    },
  ];
}
