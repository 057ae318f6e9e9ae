import assert from 'node:assert/strict';
import type { McpServer, TenantLifecycle } from '@aiplane/crds';
import { goneServer, type GoneServer, type ServerWatchEvent } from './gone-server.js';

const UID = '6f1c0a5e-1b7a-4c43-9a53-7f0e0f0e0f0e';
const OTHER_UID = '0b5e7c3a-7d2e-4f7a-8c1b-2a9d3e4f5a6b';

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
  event: ServerWatchEvent;
  tenants?: TenantLifecycle[];
  want: GoneServer | undefined;
}[] = [
  {
    name: 'answers the uid and the labelled organization of a deleted server',
    event: { type: 'deleted', server: server({ uid: UID, organization: 'org-acme' }) },
    tenants: [ACME],
    want: { serverId: UID, organizationIds: ['org-acme'] },
  },
  {
    name: 'answers the labelled organization when the tenant is already gone',
    event: { type: 'deleted', server: server({ uid: UID, organization: 'org-acme' }) },
    want: { serverId: UID, organizationIds: ['org-acme'] },
  },
  {
    name: 'answers the organization of the namespace’s tenant for a server without the label (kubectl)',
    event: { type: 'deleted', server: server({ uid: UID }) },
    tenants: [tenant('other', 'org-other'), ACME],
    want: { serverId: UID, organizationIds: ['org-acme'] },
  },
  {
    name: 'answers both organizations when the label and the namespace’s tenant differ',
    event: { type: 'deleted', server: server({ uid: UID, organization: 'org-x' }) },
    tenants: [ACME],
    want: { serverId: UID, organizationIds: ['org-x', 'org-acme'] },
  },
  {
    name: 'answers no organization when neither a label nor a tenant with one is known',
    event: { type: 'deleted', server: server({ uid: UID }) },
    tenants: [tenant('acme')],
    want: { serverId: UID, organizationIds: [] },
  },
  {
    name: 'treats an empty organization label as none',
    event: { type: 'deleted', server: server({ uid: UID, organization: '' }) },
    want: { serverId: UID, organizationIds: [] },
  },
  {
    name: 'answers nothing for a deleted object without uid',
    event: { type: 'deleted', server: server({ organization: 'org-acme' }) },
    want: undefined,
  },
  {
    name: 'answers nothing for an ordinary update (same uid)',
    event: {
      type: 'updated',
      server: server({ uid: UID, organization: 'org-acme' }),
      old: server({ uid: UID, organization: 'org-acme' }),
    },
    want: undefined,
  },
  {
    name: 'answers the old uid for an update that replaced the server under its name',
    event: {
      type: 'updated',
      server: server({ uid: OTHER_UID, organization: 'org-acme' }),
      old: server({ uid: UID, organization: 'org-acme' }),
    },
    tenants: [ACME],
    want: { serverId: UID, organizationIds: ['org-acme'] },
  },
];

describe('goneServer (which server a watch event says is gone, and for which organizations)', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(goneServer(c.event, c.tenants ?? []), c.want);
    });
  }
});
