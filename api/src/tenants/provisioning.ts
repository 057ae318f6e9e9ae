import { ApiError } from '@aiplane/lib/errors';

/** An organization without a live tenant (namespace) cannot hold MCP servers or agents yet. */
export function notProvisioned(organizationId: string): ApiError {
  return new ApiError(
    'organization_not_provisioned',
    `organization ${organizationId} has no provisioned tenant; create one under /v1/admin/tenants first`,
  );
}
