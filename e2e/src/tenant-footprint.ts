/**
 * What a tenant leaves in the world, as the suite observed it: the admin API's record, the
 * TenantLifecycle, the namespace, McpServers, the Keycloak organization, and the dedicated
 * database with its owner role. Pure: gathering the observation is the suite's job.
 */
export interface TenantObservation {
  slug: string;
  namespace: string;
  organizationId: string;
  /** HTTP status of GET /v1/admin/tenants/{id}. */
  recordStatus: number;
  /** The cluster-scoped TenantLifecycle named after the slug exists. */
  tenantLifecycle: boolean;
  /** The namespace's phase (`Active`, `Terminating`), or null when it is gone. */
  namespacePhase: string | null;
  /** `<namespace>/<name>` of McpServers in the tenant namespace or labelled with its organization. */
  mcpServers: string[];
  /** GET /admin/realms/<realm>/organizations/{id} answered the organization. */
  organizationById: boolean;
  /** Ids of organizations whose alias is the slug. */
  organizationsWithAlias: string[];
  /** Names found in pg_database among the tenant's database names. */
  databases: string[];
  /** Names found in pg_roles among the tenant's role names. */
  roles: string[];
  /** Ids of the tenant's MCP servers that still have user credentials in the API's database. */
  mcpCredentials: string[];
}

/** Everything of the tenant that still exists, each as a sentence; empty when nothing is left. */
export function tenantLeftovers(o: TenantObservation): string[] {
  const out: string[] = [];
  if (o.recordStatus !== 404) {
    out.push(`GET /v1/admin/tenants/<id> answers ${o.recordStatus}, not 404`);
  }
  if (o.tenantLifecycle) out.push(`TenantLifecycle ${o.slug} exists`);
  if (o.namespacePhase !== null) out.push(`namespace ${o.namespace} exists (${o.namespacePhase})`);
  for (const s of o.mcpServers) out.push(`McpServer ${s} exists`);
  if (o.organizationById) out.push(`Keycloak organization ${o.organizationId} exists`);
  for (const id of o.organizationsWithAlias.filter((x) => x !== o.organizationId)) {
    out.push(`Keycloak organization ${id} with alias ${o.slug} exists`);
  }
  for (const d of o.databases) out.push(`PostgreSQL database ${d} exists`);
  for (const r of o.roles) out.push(`PostgreSQL role ${r} exists`);
  for (const id of o.mcpCredentials) {
    out.push(`user credentials for MCP server ${id} remain in the API's database`);
  }
  return out;
}

/** What a Ready tenant must have and lacks, each as a sentence; empty when all is there. */
export function tenantMissing(
  o: TenantObservation,
  expected: { mcpServer?: string; database: string },
): string[] {
  const out: string[] = [];
  if (o.recordStatus !== 200)
    out.push(`GET /v1/admin/tenants/<id> answers ${o.recordStatus}, not 200`);
  if (!o.tenantLifecycle) out.push(`TenantLifecycle ${o.slug} is missing`);
  if (o.namespacePhase !== 'Active') {
    out.push(`namespace ${o.namespace} is ${o.namespacePhase ?? 'missing'}, not Active`);
  }
  if (expected.mcpServer !== undefined && !o.mcpServers.includes(expected.mcpServer)) {
    out.push(`McpServer ${expected.mcpServer} is missing`);
  }
  if (!o.organizationById) out.push(`Keycloak organization ${o.organizationId} is missing`);
  if (!o.organizationsWithAlias.includes(o.organizationId)) {
    out.push(`no Keycloak organization ${o.organizationId} has alias ${o.slug}`);
  }
  if (!o.databases.includes(expected.database)) {
    out.push(`PostgreSQL database ${expected.database} is missing`);
  }
  if (!o.roles.includes(expected.database))
    out.push(`PostgreSQL role ${expected.database} is missing`);
  return out;
}
