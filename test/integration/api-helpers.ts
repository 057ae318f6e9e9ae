import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createLogger } from '@aiplane/lib';
import { loadApiConfig, startApi, type RunningApi, type StartApiOptions } from '@aiplane/api';
import { apiEnv, createDatabase, passwordGrant, waitFor, type KeycloakInfo } from '@aiplane/hack';
import type { KubeConfig } from '@kubernetes/client-node';
import { environment } from './harness.js';
import { rememberSecret } from './secrets.js';

export type DevUser = 'admin' | 'member' | 'outsider' | 'nobody';
/** A user a suite created for itself (keycloak-admin.ts, createTestUser), who logs in by password. */
export interface TestUser {
  id: string;
  username: string;
  password: string;
}

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

/**
 * The scope that asks for every organization claim: Keycloak leaves the organization claim out
 * for a member of several organizations unless all are asked for.
 */
export const ORG_SCOPE = { scope: 'openid organization:*' };

/** A fresh access token for a dev user or a test user (password grant against the running Keycloak). */
export async function tokenFor(
  user: DevUser | TestUser,
  opts: { scope?: string } = {},
): Promise<string> {
  const info = keycloak();
  const login = typeof user === 'string' ? info.users[user] : user;
  const { access_token } = await passwordGrant(info, login, opts);
  rememberSecret(access_token);
  return access_token;
}

/**
 * A user's token with every organization claim (ORG_SCOPE), asked for again after a minute (a
 * password grant per call is slow). A token's claims are those of its issue time: a change of
 * membership or permissions drops the cache ({@link forgetCachedTokens}).
 */
const tokens = new Map<string, { at: number; token: Promise<string> }>();
export function cachedToken(user: DevUser | TestUser): Promise<string> {
  const key = typeof user === 'string' ? user : user.username;
  const hit = tokens.get(key);
  if (hit && Date.now() - hit.at < 60_000) return hit.token;
  const token = tokenFor(user, ORG_SCOPE);
  tokens.set(key, { at: Date.now(), token });
  return token;
}

export function forgetCachedTokens(): void {
  tokens.clear();
}

/** A new platform API key of a dev or test user (remembered for the log sweep): its secret. */
export async function createApiKey(
  apiUrl: string,
  user: DevUser | TestUser,
  name: string,
): Promise<string> {
  const r = await call(`${apiUrl}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor(user, ORG_SCOPE)}` },
    body: { name },
  });
  assert.equal(r.status, 201, r.text);
  const { key } = r.json() as { key: string };
  rememberSecret(key);
  return key;
}

export interface TestApi extends RunningApi {
  url: string;
  /** The API's own database (PostgreSQL URL with the superuser's credentials). */
  databaseUrl: string;
}

/**
 * Polls `url` (a /readyz) until it answers 200. The API and the gateway listen before their
 * watch caches of TenantLifecycles and McpServers have listed, and in a cluster no Service
 * sends them traffic until then; a test that called them earlier would race the first LIST.
 */
export async function awaitReady(url: string): Promise<void> {
  await waitFor(`${url} to answer 200`, async () => (await fetch(url)).status === 200);
}

/** A debug logger named `name`, writing to `<name>.log` in the run's log directory. */
export function runLogger(name: string): ReturnType<typeof createLogger> {
  const destination = createWriteStream(join(environment().controlPlane.logDir, `${name}.log`));
  return createLogger({ level: 'debug', name, destination });
}

/**
 * The loopback URL of a server this process started, once its /readyz answers 200
 * ({@link awaitReady}); a server that never gets ready is closed.
 */
export async function readyUrl(server: { port: number; close(): Promise<void> }): Promise<string> {
  const url = `http://127.0.0.1:${server.port}`;
  try {
    await awaitReady(`${url}/readyz`);
  } catch (err) {
    await server.close();
    throw err;
  }
  return url;
}

/**
 * The real API, in this process, on a loopback port, logging to the run's log directory, ready
 * (its caches synced). Its database is a fresh one named after it, or with `databaseOf` the one
 * an earlier test API of that name left (kept as it is: a restart).
 */
export async function startTestApi(
  name: string,
  env: Record<string, string> = {},
  opts: { kc?: KubeConfig; databaseOf?: string } & Omit<StartApiOptions, 'kc'> = {},
): Promise<TestApi> {
  keycloak(); // records the environment's secrets for the log sweep
  const info = environment().info();
  rememberSecret(info.postgres.password);
  rememberSecret(info.credentialKeys.split(':')[1]);
  const { kc, databaseOf, ...startOptions } = opts;
  const databaseUrl = await createDatabase(info, (databaseOf ?? name).replace(/-/g, '_'), {
    fresh: databaseOf === undefined,
  });
  const config = loadApiConfig({
    ...apiEnv(info, databaseUrl),
    AIPLANE_API_HOST: '127.0.0.1',
    AIPLANE_API_PORT: '0',
    AIPLANE_LOG_LEVEL: 'debug',
    ...env,
  });
  const api = await startApi(config, runLogger(name), {
    ...startOptions,
    kc: kc ?? environment().controlPlane.kubeConfig(),
  });
  return { ...api, url: await readyUrl(api), databaseUrl };
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
  return replyOf(res);
}

/** A fetch response read whole, as {@link call} answers it. */
export async function replyOf(res: Response): Promise<Reply> {
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: () => JSON.parse(text) as unknown,
  };
}

/** The spec's validation refusal: 422, the offending field named, and no error code. */
export function assertValidationFailed(r: Reply, field: string): void {
  assert.equal(r.status, 422, r.text);
  const err = (r.json() as { error: { code?: string; fields?: { field: string }[] } }).error;
  assert.equal(err.code, undefined, 'a validation failure carries no code');
  assert.ok(
    err.fields?.some((f) => f.field === field),
    `no error names ${field}: ${r.text}`,
  );
}

/** The spec's error reply: the status, and the error code in the body. */
export function assertCode(r: Reply, status: number, expected: string): void {
  assert.equal(r.status, status, r.text);
  assert.equal((r.json() as { error: { code?: string } }).error.code, expected, r.text);
}

/** The rows of one query against a test database (a connection of its own, closed after). */
export async function queryRows<R extends pg.QueryResultRow>(
  databaseUrl: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
