import { CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import type { TenantRecord } from '@aiplane/api';
import type pg from 'pg';
import { API_VERSION } from '@aiplane/crds';
import { kubeRequest } from '@aiplane/lib';
import { waitFor } from '@aiplane/hack';
import { call, queryRows, tokenFor, type Reply } from './api-helpers.js';
import { environment, kubeConfig } from './harness.js';
import { kcAdmin } from './keycloak-admin.js';
import { decoded } from './mcp-helpers.js';
import { rememberSecret } from './secrets.js';

export type TenantRecordBody = TenantRecord;

export async function adminCall(
  url: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Reply> {
  return call(url, { ...init, headers: { authorization: `Bearer ${await tokenFor('admin')}` } });
}

/**
 * GET of a tenant record as the platform admin, for polls: one token for the whole poll (a
 * password grant per request would cost more than the request), renewed on a 401.
 */
function tenantReader(apiUrl: string, id: string): () => Promise<Reply> {
  let token: string | undefined;
  return async () => {
    token ??= await tokenFor('admin');
    const r = await call(`${apiUrl}/v1/admin/tenants/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (r.status === 401) token = undefined;
    return r;
  };
}

/** Polls the record until `done` holds (or the tenant is gone, when `gone` is set). */
export async function awaitTenant(
  apiUrl: string,
  id: string,
  done: (r: TenantRecordBody) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<TenantRecordBody> {
  let last: TenantRecordBody | undefined;
  const read = tenantReader(apiUrl, id);
  await waitFor(
    what,
    async () => {
      const r = await read();
      if (r.status !== 200) return false;
      last = r.json() as TenantRecordBody;
      return done(last);
    },
    { timeoutMs, intervalMs: 100 },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; last record: ${JSON.stringify(last)}`);
  });
  return last as TenantRecordBody;
}

export async function awaitTenantGone(
  apiUrl: string,
  id: string,
  timeoutMs = 90_000,
): Promise<void> {
  const read = tenantReader(apiUrl, id);
  await waitFor(`tenant ${id} to answer 404`, async () => (await read()).status === 404, {
    timeoutMs,
    intervalMs: 100,
  });
}

export async function namespaceExists(name: string): Promise<boolean> {
  try {
    await kubeConfig().makeApiClient(CoreV1Api).readNamespace({ name });
    return true;
  } catch {
    return false;
  }
}

export async function databaseSecret(slug: string): Promise<Record<string, string>> {
  const secret: V1Secret = await kubeConfig()
    .makeApiClient(CoreV1Api)
    .readNamespacedSecret({ name: 'tenant-database', namespace: `tenant-${slug}` });
  const data = decoded(secret.data);
  rememberSecret(data.password);
  rememberSecret(data.uri);
  return data;
}

/** Organizations whose alias is `alias`, as Keycloak lists them. */
export async function organizationsWithAlias(
  alias: string,
): Promise<{ id: string; alias: string; attributes?: Record<string, string[]> }[]> {
  const res = await kcAdmin(
    `/organizations?search=${encodeURIComponent(alias)}&exact=false&briefRepresentation=false&max=100`,
  );
  const all = (await res.json()) as {
    id: string;
    alias: string;
    attributes?: Record<string, string[]>;
  }[];
  return all.filter((o) => o.alias === alias);
}

/** Runs `sql` as the local PostgreSQL superuser. */
export async function superuserQuery<T extends pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  return queryRows<T>(environment().info().postgres.url, sql, params);
}

/** Removes TenantLifecycles that other suites left behind (no finalizer: they go at once). */
export async function deleteStrayTenants(): Promise<void> {
  await kubeRequest(kubeConfig(), {
    method: 'DELETE',
    path: `/apis/${API_VERSION}/tenantlifecycles`,
  });
}
