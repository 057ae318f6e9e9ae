import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createLogger } from '@aiplane/lib';
import { loadApiConfig, startApi, type RunningApi } from '@aiplane/api';
import { passwordGrant, type KeycloakInfo } from '@aiplane/hack';
import { environment } from './harness.js';
import { rememberSecret } from './secrets.js';

export type DevUser = 'admin' | 'member' | 'outsider' | 'nobody';

export function keycloak(): KeycloakInfo {
  const info = environment().info().keycloak;
  for (const secret of [
    info.admin.password,
    info.clients.api.clientSecret,
    info.clients.operator.clientSecret,
    ...Object.values(info.users).map((u) => u.password),
  ]) {
    rememberSecret(secret);
  }
  return info;
}

/** A fresh access token for a dev user (password grant against the running Keycloak). */
export async function tokenFor(user: DevUser): Promise<string> {
  const info = keycloak();
  const { access_token } = await passwordGrant(info, info.users[user]);
  rememberSecret(access_token);
  return access_token;
}

/** Creates an empty database in the run's PostgreSQL and answers its URL. */
export async function createDatabase(name: string): Promise<string> {
  const pgInfo = environment().info().postgres;
  rememberSecret(pgInfo.password);
  const client = new pg.Client({ connectionString: pgInfo.url });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(pgInfo.url);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface TestApi extends RunningApi {
  url: string;
}

/** The real API, in this process, on a loopback port, logging to the run's log directory. */
export async function startTestApi(
  name: string,
  env: Record<string, string> = {},
): Promise<TestApi> {
  const info = keycloak();
  const config = loadApiConfig({
    AIPLANE_API_HOST: '127.0.0.1',
    AIPLANE_API_PORT: '0',
    AIPLANE_LOG_LEVEL: 'debug',
    AIPLANE_DATABASE_URL: await createDatabase(name.replace(/-/g, '_')),
    AIPLANE_OIDC_ISSUER: info.issuer,
    AIPLANE_OIDC_AUDIENCE: info.audience,
    AIPLANE_IDP_URL: info.url,
    AIPLANE_IDP_REALM: info.realm,
    AIPLANE_IDP_CLIENT_ID: info.clients.api.clientId,
    AIPLANE_IDP_CLIENT_SECRET: info.clients.api.clientSecret,
    ...env,
  });
  const destination = createWriteStream(join(environment().controlPlane.logDir, `${name}.log`));
  const api = await startApi(config, createLogger({ level: 'debug', name, destination }), {
    kc: environment().controlPlane.kubeConfig(),
  });
  return { ...api, url: `http://127.0.0.1:${api.port}` };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: () => unknown;
}

export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: () => JSON.parse(text) as unknown,
  };
}
