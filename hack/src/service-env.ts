import pg from 'pg';
import type { EnvironmentInfo } from './environment.js';
import { miniLmDir, speechHelperPath } from './paths.js';

/**
 * How the API and the operator are wired to the local environment: the one place `make dev`,
 * the integration tests and the benchmarks take their configuration from.
 */

/** A database in the environment's PostgreSQL (`fresh` drops an existing one first); its URL. */
export async function createDatabase(
  info: EnvironmentInfo,
  name: string,
  opts: { fresh?: boolean } = {},
): Promise<string> {
  const client = new pg.Client({ connectionString: info.postgres.url });
  await client.connect();
  try {
    if (opts.fresh) {
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    }
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(info.postgres.url);
  url.pathname = `/${name}`;
  return url.toString();
}

/** AIPLANE_* variables for the API (api/src/config.ts) against this environment. */
export function apiEnv(info: EnvironmentInfo, databaseUrl: string): Record<string, string> {
  const kc = info.keycloak;
  return {
    KUBECONFIG: info.kubeconfig,
    AIPLANE_DATABASE_URL: databaseUrl,
    AIPLANE_OIDC_ISSUER: kc.issuer,
    AIPLANE_OIDC_AUDIENCE: kc.audience,
    AIPLANE_IDP_URL: kc.url,
    AIPLANE_IDP_REALM: kc.realm,
    AIPLANE_IDP_CLIENT_ID: kc.clients.api.clientId,
    AIPLANE_IDP_CLIENT_SECRET: kc.clients.api.clientSecret,
    AIPLANE_CREDENTIAL_KEYS: info.credentialKeys,
    // The local embedding model as hack/lib/install-models.sh extracts it (docs/adr/0031).
    AIPLANE_EMBEDDING_MODEL_DIR: miniLmDir(),
    // The local speech engine's helper as hack/lib/build-speech-helper.sh compiles it, over
    // Debian's pocketsphinx-en-us model (its default place; docs/adr/0036).
    AIPLANE_STT_POCKETSPHINX_HELPER: speechHelperPath(),
  };
}

/** AIPLANE_* variables for the operator (operator/src/config.ts) against this environment. */
export function operatorEnv(info: EnvironmentInfo): Record<string, string> {
  const kc = info.keycloak;
  return {
    KUBECONFIG: info.kubeconfig,
    AIPLANE_IDP_URL: kc.url,
    AIPLANE_IDP_REALM: kc.realm,
    AIPLANE_OPERATOR_IDP_CLIENT_ID: kc.clients.operator.clientId,
    AIPLANE_OPERATOR_IDP_CLIENT_SECRET: kc.clients.operator.clientSecret,
    AIPLANE_TENANT_DB_ADMIN_URL: info.postgres.url,
  };
}
