import assert from 'node:assert/strict';
import { tenantLeftovers, tenantMissing, type TenantObservation } from './tenant-footprint.js';

const ORG = '3f1c2b4a-0000-4000-8000-000000000001';
const DB = 'tenant_e2e_1a2b3c';
const SERVER = '6c6a06c2-3264-4aec-919a-98e3cd837883';

/** Nothing of tenant e2e-1a2b3c is left. */
const GONE: TenantObservation = {
  slug: 'e2e-1a2b3c',
  namespace: 'tenant-e2e-1a2b3c',
  organizationId: ORG,
  recordStatus: 404,
  tenantLifecycle: false,
  namespacePhase: null,
  mcpServers: [],
  organizationById: false,
  organizationsWithAlias: [],
  databases: [],
  roles: [],
  mcpCredentials: [],
};

/** Everything of a Ready tenant with a managed server is there. */
const READY: TenantObservation = {
  ...GONE,
  recordStatus: 200,
  tenantLifecycle: true,
  namespacePhase: 'Active',
  mcpServers: ['tenant-e2e-1a2b3c/e2e-mcp'],
  organizationById: true,
  organizationsWithAlias: [ORG],
  databases: [DB],
  roles: [DB],
  mcpCredentials: [SERVER],
};

describe('what a tenant leaves behind', function () {
  it('finds nothing left when every place is clean', function () {
    assert.deepEqual(tenantLeftovers(GONE), []);
  });

  const cases: [string, Partial<TenantObservation>, string][] = [
    ['the record', { recordStatus: 200 }, 'GET /v1/admin/tenants/<id> answers 200, not 404'],
    [
      'a 500 of the record',
      { recordStatus: 500 },
      'GET /v1/admin/tenants/<id> answers 500, not 404',
    ],
    ['the TenantLifecycle', { tenantLifecycle: true }, 'TenantLifecycle e2e-1a2b3c exists'],
    [
      'a terminating namespace',
      { namespacePhase: 'Terminating' },
      'namespace tenant-e2e-1a2b3c exists (Terminating)',
    ],
    [
      'an McpServer',
      { mcpServers: ['tenant-e2e-1a2b3c/e2e-mcp'] },
      'McpServer tenant-e2e-1a2b3c/e2e-mcp exists',
    ],
    ['the organization', { organizationById: true }, `Keycloak organization ${ORG} exists`],
    [
      'another organization with the alias',
      { organizationsWithAlias: ['other-id'] },
      'Keycloak organization other-id with alias e2e-1a2b3c exists',
    ],
    ['the database', { databases: [DB] }, `PostgreSQL database ${DB} exists`],
    ['the role', { roles: [DB] }, `PostgreSQL role ${DB} exists`],
    [
      'users’ credentials for its MCP server',
      { mcpCredentials: [SERVER] },
      `user credentials for MCP server ${SERVER} remain in the API's database`,
    ],
  ];
  for (const [what, change, sentence] of cases) {
    it(`reports ${what}`, function () {
      assert.deepEqual(tenantLeftovers({ ...GONE, ...change }), [sentence]);
    });
  }

  it('reports each leftover of a tenant nothing was removed from once (its organization by id, not again by alias)', function () {
    const left = tenantLeftovers(READY);
    assert.equal(left.length, 8, left.join('\n'));
    assert.equal(left.filter((l) => l.includes(ORG)).length, 1);
  });

  it('finds nothing missing for a Ready tenant, and names each missing piece otherwise', function () {
    const expected = { mcpServer: 'tenant-e2e-1a2b3c/e2e-mcp', database: DB };
    assert.deepEqual(tenantMissing(READY, expected), []);
    assert.deepEqual(tenantMissing({ ...READY, roles: [] }, expected), [
      `PostgreSQL role ${DB} is missing`,
    ]);
    assert.deepEqual(tenantMissing({ ...READY, namespacePhase: 'Terminating' }, expected), [
      'namespace tenant-e2e-1a2b3c is Terminating, not Active',
    ]);
    assert.equal(tenantMissing(GONE, expected).length, 8);
  });

  it('does not ask for an McpServer before one is registered', function () {
    assert.deepEqual(tenantMissing({ ...READY, mcpServers: [] }, { database: DB }), []);
  });
});
