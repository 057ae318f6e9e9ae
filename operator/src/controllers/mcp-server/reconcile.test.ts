import assert from 'node:assert/strict';
import type { V1Deployment } from '@kubernetes/client-node';
import type { McpServer, McpServerStatus } from '@aiplane/crds';
import { sendJson, startFakeApiServer, type FakeApiServer } from '@aiplane/lib/testing';
import pino from 'pino';
import { OwnWrites, type ReconcileOutcome, StatusMemory } from '../../runtime/index.js';
import type { McpServerControllerDeps } from './deps.js';
import type { HandshakeResult } from './handshake.js';
import { reconcileMcpServer } from './reconcile.js';

const KEY = 'tenant-acme/files';
const RECHECK_MS = 30_000;
const START = Date.parse('2026-11-22T10:00:00Z');
const OK: HandshakeResult = {
  ok: true,
  protocolVersion: '2025-11-25',
  serverName: 'files',
  serverVersion: '1.0',
};
const REFUSED: HandshakeResult = { ok: false, message: 'connection refused' };

/** An available Deployment at `generation`, rolled out (as the apiserver answers the apply). */
const availableStatus = (generation: number): V1Deployment['status'] => ({
  observedGeneration: generation,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }],
});

/**
 * The apiserver as the McpServer controller sees it: applies answer the child with the
 * Deployment's current generation and status; a status patch is stored and bumps the
 * resourceVersion, and `stored` is what the watch then hands to the next reconcile.
 */
class FakeCluster {
  stored: McpServer = {
    apiVersion: 'aiplane.io/v1alpha1',
    kind: 'McpServer',
    metadata: {
      name: 'files',
      namespace: 'tenant-acme',
      uid: 'server-uid-1',
      generation: 1,
      resourceVersion: '1',
    },
    spec: { runtime: 'managed', displayName: 'Files', image: 'ghcr.io/a/b:1', port: 8080 },
  };
  deploymentGeneration = 1;
  deploymentStatus: V1Deployment['status'] = availableStatus(1);
  statusWrites = 0;
  api!: FakeApiServer;

  async start(): Promise<void> {
    this.api = await startFakeApiServer((req, res) => {
      const body = JSON.parse(req.body || '{}', (_k, v: unknown) =>
        v === null ? undefined : v,
      ) as Record<string, unknown>;
      if (req.path.endsWith('/status')) {
        this.statusWrites += 1;
        const rv = String(Number(this.stored.metadata.resourceVersion) + 1);
        this.stored = {
          ...this.stored,
          metadata: { ...this.stored.metadata, resourceVersion: rv },
          status: body.status as McpServerStatus,
        };
        return sendJson(res, 200, this.stored);
      }
      if (req.path.includes('/deployments/')) {
        const d = body as V1Deployment;
        return sendJson(res, 200, {
          ...d,
          metadata: {
            ...d.metadata,
            uid: 'deployment-uid-1',
            generation: this.deploymentGeneration,
          },
          status: this.deploymentStatus,
        });
      }
      return sendJson(res, 200, body); // the Service
    });
  }
}

describe('McpServer reconcile: the handshake between re-checks', () => {
  let cluster: FakeCluster;
  let clock: number;
  let dialled: string[];
  let answer: HandshakeResult;
  let d: McpServerControllerDeps;

  const reconcile = (): Promise<ReconcileOutcome> =>
    reconcileMcpServer(d, {
      key: KEY,
      object: cluster.stored,
      signal: new AbortController().signal,
      logger: d.logger,
      attempt: 0,
    });
  const condition = (type: string) =>
    cluster.stored.status?.conditions?.find((c) => c.type === type);

  beforeEach(async () => {
    cluster = new FakeCluster();
    await cluster.start();
    clock = START;
    dialled = [];
    answer = OK;
    d = {
      kc: cluster.api.kc,
      logger: pino({ level: 'silent' }),
      events: { record: () => undefined },
      statusMemory: new StatusMemory(),
      now: () => new Date(clock),
      handshake: (url) => {
        dialled.push(url);
        return Promise.resolve(answer);
      },
      resolveWorkload: (url) => url,
      timing: { recheckMs: RECHECK_MS, minBackoffMs: 2_000, maxBackoffMs: 60_000 },
      handshakes: new Map(),
      children: {
        deployment: () => undefined,
        service: () => undefined,
        applied: { deployments: new OwnWrites(), services: new OwnWrites() },
      },
    };
  });
  afterEach(async () => {
    await cluster.api.close();
  });

  it('does not handshake again when its own status write triggers the next reconcile', async () => {
    assert.deepEqual(await reconcile(), { requeueAfter: RECHECK_MS });
    assert.deepEqual(dialled, ['http://files.tenant-acme.svc:8080/mcp']);
    assert.equal(cluster.statusWrites, 1);
    assert.equal(cluster.stored.status?.ready, true);

    clock += 40; // the watch delivers the written status
    const again = await reconcile();
    assert.equal(dialled.length, 1, 'no second handshake');
    assert.equal(cluster.statusWrites, 1, 'nothing new to write');
    assert.deepEqual(again, { requeueAfter: RECHECK_MS - 40 }, 'the re-check keeps its time');
  });

  it('handshakes again when the re-check is due, and reports the workload not ready then', async () => {
    await reconcile();
    answer = REFUSED;
    clock += RECHECK_MS - 1;
    await reconcile();
    assert.equal(dialled.length, 1);
    assert.equal(cluster.stored.status?.ready, true);

    clock += 1;
    assert.deepEqual(await reconcile(), { requeueAfter: 2_000 });
    assert.equal(dialled.length, 2);
    assert.equal(cluster.stored.status?.ready, false);
    assert.equal(condition('McpHandshake')?.reason, 'HandshakeFailed');
  });

  it('keeps a failed handshake for the backoff in effect, then tries again', async () => {
    answer = REFUSED;
    assert.deepEqual(await reconcile(), { requeueAfter: 2_000 });
    answer = OK;
    clock += 1_500;
    assert.deepEqual(await reconcile(), { requeueAfter: 500 });
    assert.equal(dialled.length, 1);
    assert.equal(cluster.stored.status?.ready, false);

    clock += 500;
    assert.deepEqual(await reconcile(), { requeueAfter: RECHECK_MS });
    assert.equal(dialled.length, 2);
    assert.equal(cluster.stored.status?.ready, true);
  });

  it('handshakes again when a new revision of the Deployment has rolled out', async () => {
    await reconcile();
    cluster.deploymentGeneration = 2;
    cluster.deploymentStatus = availableStatus(2);
    clock += 1_000;
    await reconcile();
    assert.equal(dialled.length, 2);
  });

  it('handshakes again after the Deployment was unavailable in between', async () => {
    await reconcile();
    cluster.deploymentStatus = { ...availableStatus(1), readyReplicas: 0, availableReplicas: 0 };
    clock += 1_000;
    assert.equal(await reconcile(), undefined, 'waits for Deployment events');
    assert.equal(condition('McpHandshake')?.status, 'Unknown');
    cluster.deploymentStatus = availableStatus(1);
    clock += 1_000;
    await reconcile();
    assert.equal(dialled.length, 2);
    assert.equal(cluster.stored.status?.ready, true);
  });

  it('handshakes again for a server re-created under the same name', async () => {
    await reconcile();
    cluster.stored = {
      ...cluster.stored,
      metadata: { ...cluster.stored.metadata, uid: 'server-uid-2' },
      status: undefined,
    };
    clock += 1_000;
    await reconcile();
    assert.equal(dialled.length, 2);
  });
});
