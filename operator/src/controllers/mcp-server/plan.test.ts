import assert from 'node:assert/strict';
import type { V1Deployment } from '@kubernetes/client-node';
import type { McpServerStatus } from '@aiplane/crds';
import {
  availability,
  handshakeStands,
  nextCheck,
  planNotApplied,
  planStatus,
  workloadRevision,
  type Observation,
  type RememberedHandshake,
} from './plan.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const deployment = (status: V1Deployment['status'], generation = 1): V1Deployment => ({
  metadata: { generation },
  status,
});
const available = deployment({
  observedGeneration: 1,
  replicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  updatedReplicas: 1,
  conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }],
});
const unavailable = deployment({
  observedGeneration: 1,
  replicas: 1,
  updatedReplicas: 1,
  conditions: [
    {
      type: 'Available',
      status: 'False',
      reason: 'MinimumReplicasUnavailable',
      message: 'Deployment does not have minimum availability.',
    },
  ],
});
const obs = (o: Partial<Observation>): Observation => ({
  generation: 3,
  previous: undefined,
  deployment: undefined,
  url: 'http://files.tenant-acme.svc:8080/mcp',
  handshake: undefined,
  ...o,
});
const cond = (s: ReturnType<typeof planStatus>, type: string) =>
  s.conditions?.find((c) => c.type === type);

describe('McpServer status planning', () => {
  const cases: [
    string,
    Partial<Observation>,
    { ready: boolean; available: string; handshake: string; readyReason: string },
  ][] = [
    [
      'no Deployment yet',
      {},
      { ready: false, available: 'False', handshake: 'Unknown', readyReason: 'DeploymentMissing' },
    ],
    [
      'Deployment unavailable (no kubelet)',
      { deployment: unavailable },
      {
        ready: false,
        available: 'False',
        handshake: 'Unknown',
        readyReason: 'DeploymentUnavailable',
      },
    ],
    [
      'available but the handshake failed',
      { deployment: available, handshake: { ok: false, message: 'connection refused' } },
      { ready: false, available: 'True', handshake: 'False', readyReason: 'HandshakeFailed' },
    ],
    [
      'available and the handshake succeeded',
      {
        deployment: available,
        handshake: {
          ok: true,
          protocolVersion: '2025-11-25',
          serverName: 'files',
          serverVersion: '1.0',
        },
      },
      { ready: true, available: 'True', handshake: 'True', readyReason: 'Ready' },
    ],
  ];
  for (const [what, o, want] of cases) {
    it(`plans ready=${want.ready} when ${what}`, () => {
      const s = planStatus(obs(o), NOW);
      assert.equal(s.ready, want.ready);
      assert.equal(cond(s, 'Available')?.status, want.available);
      assert.equal(cond(s, 'McpHandshake')?.status, want.handshake);
      assert.equal(cond(s, 'Ready')?.reason, want.readyReason);
      assert.equal(s.observedGeneration, 3);
      assert.equal(s.url, 'http://files.tenant-acme.svc:8080/mcp');
      for (const c of s.conditions ?? []) assert.equal(c.observedGeneration, 3);
    });
  }

  it('says why the handshake failed, in the McpHandshake message', () => {
    const s = planStatus(
      obs({
        deployment: available,
        handshake: { ok: false, message: 'MCP handshake with x failed: connection refused' },
      }),
      NOW,
    );
    assert.match(cond(s, 'McpHandshake')?.message ?? '', /connection refused/);
  });

  it('is not available while an old pod still serves next to the new one', () => {
    const surge = deployment({ ...available.status, replicas: 2, updatedReplicas: 1 });
    assert.equal(availability(surge).available, false);
    assert.equal(availability(surge).reason, 'RollingOut');
  });

  it('is ready when the workload answers as an MCP protected resource', () => {
    const s = planStatus(
      obs({ deployment: available, handshake: { ok: true, authenticationRequired: true } }),
      NOW,
    );
    assert.equal(s.ready, true);
    assert.equal(cond(s, 'McpHandshake')?.reason, 'AuthenticationRequired');
  });

  it('is not available while a new revision rolls out', () => {
    const rolling = deployment({ ...available.status, observedGeneration: 1 }, 2);
    assert.equal(availability(rolling).available, false);
    assert.equal(availability(rolling).reason, 'RollingOut');
  });

  it('keeps lastTransitionTime while a condition keeps its status', () => {
    const first = planStatus(obs({ deployment: unavailable }), NOW);
    const later = planStatus(
      obs({ deployment: unavailable, previous: first }),
      new Date('2026-11-22T10:05:00Z'),
    );
    assert.equal(
      cond(later, 'Ready')?.lastTransitionTime,
      cond(first, 'Ready')?.lastTransitionTime,
    );
  });

  describe('nextCheck', () => {
    const timing = { recheckMs: 30_000, minBackoffMs: 2_000, maxBackoffMs: 60_000 };
    it('re-checks a ready workload periodically', () => {
      const s = planStatus(
        obs({
          deployment: available,
          handshake: { ok: true, protocolVersion: 'p', serverName: 'n', serverVersion: '' },
        }),
        NOW,
      );
      assert.equal(nextCheck(s, NOW, timing), 30_000);
    });
    it('backs off a failing handshake: the delay grows with how long it has failed, up to the maximum', () => {
      const failing = planStatus(
        obs({ deployment: available, handshake: { ok: false, message: 'x' } }),
        NOW,
      );
      assert.equal(nextCheck(failing, NOW, timing), 2_000);
      assert.equal(nextCheck(failing, new Date(NOW.getTime() + 8_000), timing), 8_000);
      assert.equal(nextCheck(failing, new Date(NOW.getTime() + 3_600_000), timing), 60_000);
    });
    it('waits for Deployment events while the workload is unavailable', () => {
      assert.equal(
        nextCheck(planStatus(obs({ deployment: unavailable }), NOW), NOW, timing),
        undefined,
      );
    });
  });

  describe('planNotApplied', () => {
    const message = 'the cluster refused the workload: HTTP 403 (Forbidden): exceeded quota';
    const cases: [string, McpServerStatus | undefined][] = [
      ['no status yet', undefined],
      [
        'a ready server',
        planStatus(
          obs({
            deployment: available,
            handshake: { ok: true, protocolVersion: 'p', serverName: 'n', serverVersion: '' },
          }),
          NOW,
        ),
      ],
    ];
    for (const [what, previous] of cases) {
      it(`reports Available and Ready False (WorkloadNotApplied) for ${what}, keeping the rest`, () => {
        const later = new Date(NOW.getTime() + 60_000);
        const s = planNotApplied(previous, 4, message, later);
        assert.equal(s.ready, false);
        assert.equal(s.observedGeneration, 4);
        for (const type of ['Available', 'Ready']) {
          const c = cond(s, type);
          assert.equal(c?.status, 'False');
          assert.equal(c?.reason, 'WorkloadNotApplied');
          assert.equal(c?.message, message);
          assert.equal(c?.observedGeneration, 4);
          assert.equal(c?.lastTransitionTime, later.toISOString().replace(/\.\d+Z$/, 'Z'));
        }
        assert.deepEqual(cond(s, 'McpHandshake'), cond(previous ?? {}, 'McpHandshake'));
        assert.equal(s.url, previous?.url);
        assert.equal(s.replicas, previous?.replicas);
      });
    }
  });

  describe('a remembered handshake', () => {
    const target = { uid: 'u-1', workload: workloadRevision(available), url: 'http://x/mcp' };
    const remembered: RememberedHandshake = {
      ...target,
      at: NOW.getTime(),
      forMs: 30_000,
      result: { ok: false, message: 'x' },
    };
    const at = (ms: number) => new Date(NOW.getTime() + ms);
    const cases: [
      string,
      RememberedHandshake | undefined,
      typeof target,
      Date,
      number | undefined,
    ][] = [
      ['stands for the time left', remembered, target, at(10_000), 20_000],
      ['is due when as old as it stands', remembered, target, at(30_000), undefined],
      ['is due when none was made', undefined, target, NOW, undefined],
      ['is due for another server', remembered, { ...target, uid: 'u-2' }, NOW, undefined],
      [
        'is due for another address',
        remembered,
        { ...target, url: 'http://y/mcp' },
        NOW,
        undefined,
      ],
      [
        'is due for another revision of the workload',
        remembered,
        { ...target, workload: workloadRevision(deployment(available.status, 2)) },
        NOW,
        undefined,
      ],
    ];
    for (const [what, r, current, now, want] of cases) {
      it(what, () => assert.equal(handshakeStands(r, current, now), want));
    }

    it('ignores Deployment status churn that changes no pod, and sees one that does', () => {
      const churned = deployment({
        ...available.status,
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'MinimumReplicasAvailable',
            lastUpdateTime: new Date(),
          },
        ],
      });
      assert.equal(workloadRevision(churned), workloadRevision(available));
      assert.notEqual(
        workloadRevision(deployment({ ...available.status, readyReplicas: 0 })),
        workloadRevision(available),
      );
    });
  });
});
