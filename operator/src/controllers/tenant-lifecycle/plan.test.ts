import assert from 'node:assert/strict';
import type { TenantLifecycleStatus } from '@aiplane/crds';
import { planEvents, planStatus, type StepState, type TenantObservation } from './plan.js';

const ready = (reason: string): StepState => ({ state: 'ready', reason, message: reason });
const progressing = (reason: string): StepState => ({
  state: 'progressing',
  reason,
  message: reason,
});
const failed = (reason: string): StepState => ({ state: 'failed', reason, message: reason });
const now = new Date('2026-11-22T10:00:00Z');

function observe(over: Partial<TenantObservation>): TenantObservation {
  return {
    generation: 1,
    previous: undefined,
    deleting: false,
    dedicatedDatabase: false,
    namespace: progressing('CreatingNamespace'),
    identity: progressing('WaitingForNamespace'),
    ...over,
  };
}

describe('tenant lifecycle plan', function () {
  const cases: [
    string,
    Partial<TenantObservation>,
    { phase: string; stage: string; ready: string },
  ][] = [
    ['nothing done yet', {}, { phase: 'Provisioning', stage: 'Accepted', ready: 'False' }],
    [
      'namespace ready',
      { namespace: ready('NamespaceReady') },
      { phase: 'Provisioning', stage: 'Namespace', ready: 'False' },
    ],
    [
      'namespace and identity ready, no database asked',
      { namespace: ready('NamespaceReady'), identity: ready('OrganizationReady') },
      { phase: 'Ready', stage: 'Ready', ready: 'True' },
    ],
    [
      'identity ready, database still provisioning',
      {
        dedicatedDatabase: true,
        namespace: ready('NamespaceReady'),
        identity: ready('OrganizationReady'),
        database: progressing('ProvisioningDatabase'),
      },
      { phase: 'Provisioning', stage: 'Identity', ready: 'False' },
    ],
    [
      'all three ready',
      {
        dedicatedDatabase: true,
        namespace: ready('NamespaceReady'),
        identity: ready('OrganizationReady'),
        database: ready('DatabaseReady'),
      },
      { phase: 'Ready', stage: 'Ready', ready: 'True' },
    ],
    [
      'an organization gone after the tenant was Ready',
      {
        previous: { phase: 'Ready' },
        namespace: ready('NamespaceReady'),
        identity: failed('OrganizationMissing'),
      },
      { phase: 'Degraded', stage: 'Namespace', ready: 'False' },
    ],
    [
      'a failure before the tenant was ever Ready',
      {
        previous: { phase: 'Provisioning' },
        namespace: ready('NamespaceReady'),
        identity: failed('IdentityProviderUnavailable'),
      },
      { phase: 'Provisioning', stage: 'Namespace', ready: 'False' },
    ],
    [
      'a repaired tenant',
      {
        previous: { phase: 'Degraded' },
        namespace: ready('NamespaceReady'),
        identity: ready('OrganizationReady'),
      },
      { phase: 'Ready', stage: 'Ready', ready: 'True' },
    ],
    [
      'a deletion',
      { deleting: true, namespace: ready('NamespaceReady'), identity: ready('OrganizationReady') },
      { phase: 'Deleting', stage: 'Ready', ready: 'True' },
    ],
  ];
  for (const [what, over, expected] of cases) {
    it(`plans phase ${expected.phase}, stage ${expected.stage} for ${what}`, function () {
      const s = planStatus(observe(over), now);
      assert.equal(s.phase, expected.phase);
      assert.equal(s.stage, expected.stage);
      assert.equal(s.conditions?.find((c) => c.type === 'Ready')?.status, expected.ready);
    });
  }

  it('names the first blocking service in the Ready condition', function () {
    const s = planStatus(
      observe({ namespace: ready('NamespaceReady'), identity: failed('OrganizationConflict') }),
      now,
    );
    const readyCond = s.conditions?.find((c) => c.type === 'Ready');
    assert.equal(readyCond?.reason, 'OrganizationConflict');
    assert.match(readyCond?.message ?? '', /^IdentityReady: /);
  });

  it('reports DatabaseReady True with reason NotRequested when no database is asked', function () {
    const s = planStatus(observe({}), now);
    const db = s.conditions?.find((c) => c.type === 'DatabaseReady');
    assert.equal(db?.status, 'True');
    assert.equal(db?.reason, 'NotRequested');
    assert.equal(s.services?.database, null);
  });

  it('records the organization id and the database Secret in per-service status', function () {
    const s = planStatus(
      observe({
        dedicatedDatabase: true,
        namespace: ready('NamespaceReady'),
        identity: { ...ready('OrganizationReady'), organizationId: 'org-1' },
        database: { ...ready('DatabaseReady'), name: 'tenant_acme', secretName: 'tenant-database' },
      }),
      now,
    );
    assert.equal(s.organizationId, 'org-1');
    assert.deepEqual(s.services?.identity, { ready: true, organizationId: 'org-1' });
    assert.deepEqual(s.services?.database, {
      ready: true,
      name: 'tenant_acme',
      secretRef: { name: 'tenant-database' },
    });
  });

  it('keeps lastTransitionTime of conditions whose status did not flip', function () {
    const first = planStatus(observe({ namespace: ready('NamespaceReady') }), now);
    const later = new Date(now.getTime() + 60_000);
    const second = planStatus(
      observe({ previous: first, generation: 2, namespace: ready('NamespaceReady') }),
      later,
    );
    const ns = (s: TenantLifecycleStatus) => s.conditions?.find((c) => c.type === 'NamespaceReady');
    assert.equal(ns(second)?.lastTransitionTime, ns(first)?.lastTransitionTime);
    assert.equal(ns(second)?.observedGeneration, 2);
  });

  it('emits a Normal event when a step becomes ready and a Warning once per new failure', function () {
    const o1 = observe({ namespace: ready('NamespaceReady') });
    const s1 = planStatus(o1, now);
    assert.deepEqual(
      planEvents(o1, s1).map((e) => `${e.type}/${e.reason}`),
      ['Normal/NamespaceReady'],
    );
    const o2 = observe({
      previous: s1,
      namespace: ready('NamespaceReady'),
      identity: failed('IdentityProviderUnavailable'),
    });
    const s2 = planStatus(o2, now);
    assert.deepEqual(
      planEvents(o2, s2).map((e) => `${e.type}/${e.reason}`),
      ['Warning/IdentityProviderUnavailable'],
    );
    const o3 = observe({
      previous: s2,
      namespace: ready('NamespaceReady'),
      identity: failed('IdentityProviderUnavailable'),
    });
    assert.deepEqual(
      planEvents(o3, planStatus(o3, now)),
      [],
      'the same failure again is not a new event',
    );
  });

  it('emits TenantReady when the phase becomes Ready and TenantDegraded when it degrades', function () {
    const up = observe({
      previous: { phase: 'Provisioning' },
      namespace: ready('NamespaceReady'),
      identity: ready('OrganizationReady'),
    });
    assert.ok(planEvents(up, planStatus(up, now)).some((e) => e.reason === 'TenantReady'));
    const down = observe({
      previous: { phase: 'Ready' },
      namespace: ready('NamespaceReady'),
      identity: failed('OrganizationMissing'),
    });
    assert.ok(
      planEvents(down, planStatus(down, now)).some(
        (e) => e.reason === 'TenantDegraded' && e.type === 'Warning',
      ),
    );
  });
});

describe('tenant lifecycle plan: organization history', function () {
  const up = (
    organizationId: string,
    previousOrganizationIds?: string[],
  ): TenantLifecycleStatus => ({
    phase: 'Degraded',
    organizationId,
    ...(previousOrganizationIds ? { previousOrganizationIds } : {}),
  });
  const pass = (previous: TenantLifecycleStatus | undefined, organizationId?: string) =>
    planStatus(
      observe({
        previous,
        namespace: ready('NamespaceReady'),
        identity: { ...ready('OrganizationCreated'), organizationId },
      }),
      now,
    );

  it('keeps the replaced organization id when a re-created organization takes its place', function () {
    const s = pass(up('org-1'), 'org-2');
    assert.equal(s.organizationId, 'org-2');
    assert.deepEqual(s.previousOrganizationIds, ['org-1']);
  });

  it('adds each replaced id once, oldest first, and never the current one', function () {
    assert.deepEqual(pass(up('org-2', ['org-1']), 'org-3').previousOrganizationIds, [
      'org-1',
      'org-2',
    ]);
    assert.deepEqual(pass(up('org-2', ['org-1']), 'org-2').previousOrganizationIds, ['org-1']);
    assert.deepEqual(pass(up('org-2', ['org-1', 'org-2']), 'org-2').previousOrganizationIds, [
      'org-1',
    ]);
  });

  it('writes no history for a tenant whose organization never changed', function () {
    assert.equal('previousOrganizationIds' in pass(undefined, 'org-1'), false);
    assert.equal('previousOrganizationIds' in pass(up('org-1'), 'org-1'), false);
    assert.equal('previousOrganizationIds' in pass(up('org-1'), undefined), false);
  });

  it('keeps at most the 16 newest replaced ids', function () {
    const many = Array.from({ length: 16 }, (_, i) => `old-${i}`);
    const s = pass(up('org-a', many), 'org-b');
    assert.equal(s.previousOrganizationIds?.length, 16);
    assert.equal(s.previousOrganizationIds?.[0], 'old-1');
    assert.equal(s.previousOrganizationIds?.[15], 'org-a');
  });
});
