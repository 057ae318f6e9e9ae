import assert from 'node:assert/strict';
import type { TenantLifecycle } from '@aiplane/crds';
import {
  agentSweep,
  goneTenant,
  organizationMove,
  type AgentSweep,
  type GoneTenant,
} from './gone-tenant.js';

const UID = '6f1c0a5e-1b7a-4c43-9a53-7f0e0f0e0f0e';
const OTHER_UID = '0b5e7c3a-7d2e-4f7a-8c1b-2a9d3e4f5a6b';

const tenant = (slug: string, uid?: string, organizationId?: string | null): TenantLifecycle => ({
  apiVersion: 'aiplane.io/v1alpha1',
  kind: 'TenantLifecycle',
  metadata: { name: slug, ...(uid === undefined ? {} : { uid }) },
  spec: { slug, identity: { enabled: true } },
  ...(organizationId === undefined ? {} : { status: { organizationId } }),
});

const recreated = (
  slug: string,
  uid: string,
  organizationId: string,
  previousOrganizationIds: string[],
): TenantLifecycle => ({
  ...tenant(slug, uid),
  status: { organizationId, previousOrganizationIds },
});

describe('goneTenant', function () {
  const cases: {
    name: string;
    gone: TenantLifecycle;
    replacement?: TenantLifecycle;
    tenants?: TenantLifecycle[];
    want: GoneTenant | undefined;
  }[] = [
    {
      name: 'answers the recorded organization of a deleted tenant',
      gone: tenant('acme', UID, 'org-acme'),
      tenants: [tenant('other', OTHER_UID, 'org-other')],
      want: { tenant: 'acme', organizationId: 'org-acme' },
    },
    {
      name: 'answers no organization for a tenant deleted before one was recorded',
      gone: tenant('acme', UID),
      want: { tenant: 'acme', organizationId: undefined },
    },
    {
      name: 'treats an empty recorded organization as none',
      gone: tenant('acme', UID, ''),
      want: { tenant: 'acme', organizationId: undefined },
    },
    {
      name: 'answers the organization when the cache still lists the deleted object itself',
      gone: tenant('acme', UID, 'org-acme'),
      tenants: [tenant('acme', UID, 'org-acme')],
      want: { tenant: 'acme', organizationId: 'org-acme' },
    },
    {
      name: 'answers nothing when another live tenant records the same organization',
      gone: tenant('acme', UID, 'org-acme'),
      tenants: [tenant('acme-2', OTHER_UID, 'org-acme')],
      want: undefined,
    },
    {
      name: 'answers the previous object’s organization when another uid replaced it under its name',
      gone: tenant('acme', UID, 'org-acme'),
      replacement: tenant('acme', OTHER_UID),
      tenants: [tenant('acme', OTHER_UID)],
      want: { tenant: 'acme', organizationId: 'org-acme' },
    },
    {
      name: 'answers nothing when the replacing tenant adopted the same organization',
      gone: tenant('acme', UID, 'org-acme'),
      replacement: tenant('acme', OTHER_UID, 'org-acme'),
      want: undefined,
    },
  ];
  for (const c of cases) {
    it(c.name, function () {
      assert.deepEqual(goneTenant(c.gone, c.replacement, c.tenants ?? []), c.want);
    });
  }
});

describe('agentSweep', function () {
  const cases: { name: string; tenants: TenantLifecycle[]; want: AgentSweep }[] = [
    {
      name: 'sweeps with no tenant at all (every organization is gone)',
      tenants: [],
      want: { sweep: true, liveOrganizationIds: [] },
    },
    {
      name: 'answers the organization of every live tenant, each once',
      tenants: [
        tenant('acme', UID, 'org-acme'),
        tenant('other', OTHER_UID, 'org-other'),
        tenant('acme', UID, 'org-acme'),
      ],
      want: { sweep: true, liveOrganizationIds: ['org-acme', 'org-other'] },
    },
    {
      name: 'does not sweep while a live tenant has no organization recorded, naming it',
      tenants: [tenant('acme', UID, 'org-acme'), tenant('new', OTHER_UID)],
      want: { sweep: false, unprovisioned: ['new'] },
    },
    {
      name: 'does not sweep while a live tenant’s organization is null',
      tenants: [tenant('new', OTHER_UID, null)],
      want: { sweep: false, unprovisioned: ['new'] },
    },
    {
      name: 'counts a tenant as known when one of its copies (cache or LIST) has the organization',
      tenants: [tenant('acme', UID), tenant('acme', UID, 'org-acme')],
      want: { sweep: true, liveOrganizationIds: ['org-acme'] },
    },
    {
      name: 'counts the ids a re-created organization replaced as live: their rows are moved, never swept',
      tenants: [
        recreated('acme', UID, 'org-acme-2', ['org-acme-1']),
        tenant('other', OTHER_UID, 'o'),
      ],
      want: { sweep: true, liveOrganizationIds: ['org-acme-2', 'org-acme-1', 'o'] },
    },
    {
      name: 'does not sweep when the recreated tenant under the same name has no organization yet',
      tenants: [tenant('acme', UID, 'org-acme'), tenant('acme', OTHER_UID)],
      want: { sweep: false, unprovisioned: ['acme'] },
    },
  ];
  for (const c of cases) {
    it(c.name, function () {
      assert.deepEqual(agentSweep(c.tenants), c.want);
    });
  }
});

describe('organizationMove', function () {
  it('moves the rows of every replaced id to the current organization', function () {
    assert.deepEqual(organizationMove(recreated('acme', UID, 'org-3', ['org-1', 'org-2'])), {
      tenant: 'acme',
      from: ['org-1', 'org-2'],
      to: 'org-3',
    });
  });

  it('moves nothing for a tenant whose organization never changed, or has none', function () {
    assert.equal(organizationMove(tenant('acme', UID, 'org-1')), undefined);
    assert.equal(organizationMove(tenant('acme', UID)), undefined);
    assert.equal(organizationMove(recreated('acme', UID, 'org-1', ['org-1'])), undefined);
  });
});
