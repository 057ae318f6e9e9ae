import assert from 'node:assert/strict';
import type { V1Deployment } from '@kubernetes/client-node';
import { availability, nextCheck, planStatus, type Observation } from './plan.js';

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
});
