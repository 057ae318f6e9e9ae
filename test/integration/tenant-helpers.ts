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

/** Polls the record until `done` holds (or the tenant is gone, when `gone` is set). */
export async function awaitTenant(
  apiUrl: string,
  id: string,
  done: (r: TenantRecordBody) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<TenantRecordBody> {
  let last: TenantRecordBody | undefined;
  await waitFor(
    what,
    async () => {
      const r = await adminCall(`${apiUrl}/v1/admin/tenants/${id}`);
      if (r.status !== 200) return false;
      last = r.json() as TenantRecordBody;
      return done(last);
    },
    { timeoutMs, intervalMs: 250 },
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
  await waitFor(
    `tenant ${id} to answer 404`,
    async () => (await adminCall(`${apiUrl}/v1/admin/tenants/${id}`)).status === 404,
    {
      timeoutMs,
      intervalMs: 250,
    },
  );
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
