import pg from 'pg';
import { tenantNamespace } from '@aiplane/crds';
import type { Platform } from './platform.js';
import { REALM } from './platform.js';
import type { TenantObservation } from './tenant-footprint.js';

/** The tenant's database and owner role names (docs/tenants.md: `tenant_<slug, - as _>`). */
export function tenantDatabaseName(slug: string): string {
  return `tenant_${slug.replaceAll('-', '_')}`;
}

async function postgresNames(
  url: string,
  names: string[],
): Promise<{ databases: string[]; roles: string[] }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const databases = await client.query<{ datname: string }>(
      'select datname from pg_database where datname = any($1::text[]) order by datname',
      [names],
    );
    const roles = await client.query<{ rolname: string }>(
      'select rolname from pg_roles where rolname = any($1::text[]) order by rolname',
      [names],
    );
    return {
      databases: databases.rows.map((r) => r.datname),
      roles: roles.rows.map((r) => r.rolname),
    };
  } finally {
    await client.end();
  }
}

/** Which of these MCP server ids still have user credentials (the API's `mcp_credentials`). */
async function serversWithCredentials(url: string, serverIds: string[]): Promise<string[]> {
  if (serverIds.length === 0) return [];
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_id: string }>(
      'select distinct server_id::text from mcp_credentials where server_id = any($1::uuid[]) order by 1',
      [serverIds],
    );
    return rows.map((r) => r.server_id);
  } finally {
    await client.end();
  }
}

/**
 * Looks at everything a tenant may own, wherever it lives: the admin API's record, the
 * cluster (TenantLifecycle, namespace, McpServers), Keycloak (the organization by id and by
 * alias) and PostgreSQL (database and role, by name).
 */
export async function observeTenant(
  p: Platform,
  tenant: {
    id: string;
    slug: string;
    organizationId: string;
    databaseNames: string[];
    /** Its MCP servers' ids, whose credentials must go with it. */
    mcpServerIds: string[];
  },
): Promise<TenantObservation> {
  const namespace = tenantNamespace(tenant.slug);
  const record = await p.api.call('GET', `/v1/admin/tenants/${tenant.id}`, {
    token: await p.tokens.get('admin'),
  });
  const byId = await p.keycloak.admin.find(
    `/${REALM}/organizations/${encodeURIComponent(tenant.organizationId)}`,
  );
  // The substring search reads the database; exact lookups may answer from a cache.
  const q = new URLSearchParams({
    search: tenant.slug,
    exact: 'false',
    first: '0',
    max: '100',
  });
  const found = await p.keycloak.admin.get<{ id: string; alias: string }[]>(
    `/${REALM}/organizations?${q.toString()}`,
  );
  const { databases, roles } = await postgresNames(p.postgresAdminUrl, tenant.databaseNames);
  return {
    slug: tenant.slug,
    namespace,
    organizationId: tenant.organizationId,
    recordStatus: record.status,
    tenantLifecycle: await p.cluster.tenantLifecycleExists(tenant.slug),
    namespacePhase: await p.cluster.namespacePhase(namespace),
    mcpServers: await p.cluster.mcpServersOf(namespace, tenant.organizationId),
    organizationById: byId !== undefined,
    organizationsWithAlias: found.filter((o) => o.alias === tenant.slug).map((o) => o.id),
    databases,
    roles,
    mcpCredentials: await serversWithCredentials(p.apiDatabaseUrl, tenant.mcpServerIds),
  };
}
