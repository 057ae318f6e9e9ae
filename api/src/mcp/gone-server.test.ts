import assert from 'node:assert/strict';
import type { McpServer, TenantLifecycle } from '@aiplane/crds';
import { goneServer, type GoneServer } from './gone-server.js';

const UID = '6f1c0a5e-1b7a-4c43-9a53-7f0e0f0e0f0e';

const server = (
  meta: { uid?: string; namespace?: string; organization?: string } = {},
): McpServer => ({
  apiVersion: 'aiplane.io/v1alpha1',
  kind: 'McpServer',
  metadata: {
    name: 'files',
    namespace: meta.namespace ?? 'tenant-acme',
    ...(meta.uid === undefined ? {} : { uid: meta.uid }),
    ...(meta.organization === undefined
      ? {}
      : { labels: { 'aiplane.io/organization-id': meta.organization } }),
  },
  spec: { runtime: 'remote', displayName: 'Files', address: 'https://x.example/mcp' },
});

const tenant = (slug: string, organizationId?: string): TenantLifecycle =>
  ({
    apiVersion: 'aiplane.io/v1alpha1',
    kind: 'TenantLifecycle',
    metadata: { name: slug },
    spec: { slug },
    ...(organizationId === undefined ? {} : { status: { organizationId } }),
  }) as TenantLifecycle;

const ACME = tenant('acme', 'org-acme');

const cases: {
  name: string;
  gone: McpServer;
  tenants?: TenantLifecycle[];
  want: GoneServer | undefined;
}[] = [
  {
    name: 'answers the uid and the labelled organization of a deleted server',
    gone: server({ uid: UID, organization: 'org-acme' }),
    tenants: [ACME],
    want: { serverId: UID, organizationIds: ['org-acme'] },
  },
  {
    name: 'answers the labelled organization when the tenant is already gone',
    gone: server({ uid: UID, organization: 'org-acme' }),
    want: { serverId: UID, organizationIds: ['org-acme'] },
  },
  {
    name: 'answers the organization of the namespace’s tenant for a server without the label (kubectl)',
    gone: server({ uid: UID }),
    tenants: [tenant('other', 'org-other'), ACME],
    want: { serverId: UID, organizationIds: ['org-acme'] },
  },
  {
    name: 'answers both organizations when the label and the namespace’s tenant differ',
    gone: server({ uid: UID, organization: 'org-x' }),
    tenants: [ACME],
    want: { serverId: UID, organizationIds: ['org-x', 'org-acme'] },
  },
  {
    name: 'answers no organization when neither a label nor a tenant with one is known',
    gone: server({ uid: UID }),
    tenants: [tenant('acme')],
    want: { serverId: UID, organizationIds: [] },
  },
  {
    name: 'treats an empty organization label as none',
    gone: server({ uid: UID, organization: '' }),
    want: { serverId: UID, organizationIds: [] },
  },
  {
    name: 'answers nothing for a deleted object without uid',
    gone: server({ organization: 'org-acme' }),
    want: undefined,
  },
];

describe('goneServer (the id of a server that went, and for which organizations)', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(goneServer(c.gone, c.tenants ?? []), c.want);
    });
  }
});
