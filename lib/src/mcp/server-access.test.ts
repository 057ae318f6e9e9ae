import assert from 'node:assert/strict';
import {
  API_VERSION,
  MCP_SERVER_KIND,
  ORGANIZATION_LABEL,
  TENANT_LIFECYCLE_KIND,
  type McpServer,
  type TenantLifecycle,
} from '@aiplane/crds';
import type { Permission, Principal } from '../auth/principal.js';
import { mayUseServer } from './server-access.js';

const ORG = '0b7c6f1e-4a53-4a0e-9d55-1f1f6f1f6f1f';
const OTHER = '5c0d2a9e-7a1b-4c3d-8e9f-0a1b2c3d4e5f';

function tenant(slug: string, organizationId: string, deleting = false): TenantLifecycle {
  return {
    apiVersion: API_VERSION,
    kind: TENANT_LIFECYCLE_KIND,
    metadata: {
      name: slug,
      ...(deleting ? { deletionTimestamp: new Date('2026-01-01T00:00:00Z') } : {}),
    },
    spec: { slug, identity: { enabled: true } },
    status: { organizationId },
  };
}

function server(namespace: string, organizationId?: string, deleting = false): McpServer {
  return {
    apiVersion: API_VERSION,
    kind: MCP_SERVER_KIND,
    metadata: {
      name: 'files',
      namespace,
      uid: 'b5f3c1de-2a34-4c5b-8d6e-7f8091a2b3c4',
      labels: organizationId ? { [ORGANIZATION_LABEL]: organizationId } : {},
      ...(deleting ? { deletionTimestamp: new Date('2026-01-01T00:00:00Z') } : {}),
    },
    spec: { displayName: 'Files', runtime: 'remote', address: 'https://mcp.example.com/mcp' },
  };
}

function principal(
  orgs: string[],
  roles: string[] = [],
  permissions: Permission[] = ['can_access_api'],
): Principal {
  return {
    userId: 'u1',
    roles: new Set(roles),
    organizations: orgs.map((id) => ({ id, alias: id.slice(0, 4), permissions })),
    via: 'jwt',
  };
}

const tenants = { list: () => [tenant('acme', ORG), tenant('other', OTHER)] };

describe('mayUseServer (the one decision of the API and the gateway)', () => {
  it('lets a member of the server’s organization use it', () => {
    assert.equal(mayUseServer(tenants, principal([ORG]), server('tenant-acme', ORG)), true);
  });

  it('refuses a member of another organization, and lets a platform admin through', () => {
    assert.equal(mayUseServer(tenants, principal([OTHER]), server('tenant-acme', ORG)), false);
    const admin = principal([], ['platform-admin', 'can_access_api']);
    assert.equal(mayUseServer(tenants, admin, server('tenant-acme', ORG)), true);
  });

  it('refuses a member without can_access_api in the server’s organization (held elsewhere or not at all)', () => {
    assert.equal(
      mayUseServer(tenants, principal([ORG], [], []), server('tenant-acme', ORG)),
      false,
    );
    const elsewhere: Principal = {
      ...principal([]),
      organizations: [
        { id: ORG, alias: 'acme', permissions: ['can_edit_config'] },
        { id: OTHER, alias: 'other', permissions: ['can_access_api'] },
      ],
    };
    assert.equal(mayUseServer(tenants, elsewhere, server('tenant-acme', ORG)), false);
    assert.equal(mayUseServer(tenants, elsewhere, server('tenant-other', OTHER)), true);
    // A realm role grants it in every organization.
    const platformWide = principal([ORG], ['can_access_api'], []);
    assert.equal(mayUseServer(tenants, platformWide, server('tenant-acme', ORG)), true);
  });

  it('does not trust the label alone: the server must live in that organization’s namespace', () => {
    assert.equal(mayUseServer(tenants, principal([ORG]), server('tenant-other', ORG)), false);
    const noTenant = { list: () => [tenant('acme', ORG, true)] };
    assert.equal(mayUseServer(noTenant, principal([ORG]), server('tenant-acme', ORG)), false);
  });

  it('refuses a server being deleted, and one without an organization label', () => {
    assert.equal(mayUseServer(tenants, principal([ORG]), server('tenant-acme', ORG, true)), false);
    assert.equal(mayUseServer(tenants, principal([ORG]), server('tenant-acme')), false);
  });

  it('decides for the organization the caller acts in when one is given (the API’s case)', () => {
    const unlabelled = server('tenant-acme');
    assert.equal(mayUseServer(tenants, principal([ORG]), unlabelled, ORG), true);
    assert.equal(mayUseServer(tenants, principal([ORG]), unlabelled, OTHER), false);
  });
});
