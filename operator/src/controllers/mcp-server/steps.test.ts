import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import type { McpServer, McpServerStatus } from '@aiplane/crds';
import { kubeStatus, sendJson, startFakeApiServer } from '@aiplane/lib/testing';
import pino from 'pino';
import { OwnWrites, StatusMemory } from '../../runtime/index.js';
import type { McpServerControllerDeps } from './deps.js';
import {
  ensureWorkload,
  type HandshakeCheck,
  recordReadiness,
  rememberHandshake,
} from './steps.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const TIMING = { recheckMs: 30_000, minBackoffMs: 2_000, maxBackoffMs: 60_000 };
const SERVER: McpServer = {
  apiVersion: 'aiplane.io/v1alpha1',
  kind: 'McpServer',
  metadata: { name: 'files', namespace: 'tenant-acme', uid: 'u1', generation: 2 },
  spec: { runtime: 'managed', displayName: 'Files', image: 'ghcr.io/a/b:1', port: 8080 },
};

const handshakeOk: McpServerStatus = {
  ready: true,
  conditions: [
    {
      type: 'McpHandshake',
      status: 'True',
      reason: 'HandshakeSucceeded',
      message: 'answered',
      lastTransitionTime: '2026-11-22T09:00:00Z',
    },
    {
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      message: 'serving',
      lastTransitionTime: '2026-11-22T09:00:00Z',
    },
  ],
};

function deps(
  recorded: string[] = [],
  kc?: McpServerControllerDeps['kc'],
): McpServerControllerDeps {
  return {
    kc: kc ?? new KubeConfig(), // no request is made without one
    logger: pino({ level: 'silent' }),
    events: {
      record: (_o, type, reason, message) => recorded.push(`${type} ${reason}: ${message}`),
    },
    statusMemory: new StatusMemory(),
    now: () => NOW,
    handshake: () => Promise.reject(new Error('not dialled in these tests')),
    resolveWorkload: (url) => url,
    timing: TIMING,
    handshakes: new Map(),
    children: {
      deployment: () => undefined,
      service: () => undefined,
      applied: { deployments: new OwnWrites(), services: new OwnWrites() },
    },
  };
}

describe('McpServer steps', () => {
  describe('rememberHandshake', () => {
    const check: HandshakeCheck = {
      target: { uid: 'u1', workload: 'w1', url: 'http://files.tenant-acme.svc:8080/mcp' },
      result: { ok: true, protocolVersion: '2025-11-25', serverName: 'files', serverVersion: '1' },
    };

    it('remembers a new handshake until its re-check is due, and answers that time', () => {
      const d = deps();
      assert.equal(rememberHandshake(d, 'k', check, handshakeOk, NOW), TIMING.recheckMs);
      assert.deepEqual(d.handshakes.get('k'), {
        ...check.target,
        result: check.result,
        at: NOW.getTime(),
        forMs: TIMING.recheckMs,
      });
    });

    it('keeps the time a reused handshake still stands, without remembering it again', () => {
      const d = deps();
      assert.equal(
        rememberHandshake(d, 'k', { ...check, reusedForMs: 1_234 }, handshakeOk, NOW),
        1_234,
      );
      assert.equal(d.handshakes.size, 0);
    });

    it('waits for Deployment events when there was no handshake', () => {
      const d = deps();
      assert.equal(rememberHandshake(d, 'k', undefined, { ready: false }, NOW), undefined);
      assert.equal(d.handshakes.size, 0);
    });
  });

  describe('recordReadiness', () => {
    const reported = { ...SERVER, status: { ready: false } };

    it('records a transition it wrote for a server reported before', () => {
      const recorded: string[] = [];
      recordReadiness(deps(recorded), reported, handshakeOk, {
        outcome: 'patched',
        object: SERVER,
      });
      assert.deepEqual(recorded, ['Normal Ready: serving']);
    });

    it('records nothing for a new server, an unwritten status or no transition', () => {
      const recorded: string[] = [];
      const d = deps(recorded);
      recordReadiness(d, SERVER, handshakeOk, { outcome: 'patched', object: SERVER });
      recordReadiness(d, reported, handshakeOk, { outcome: 'unchanged' });
      recordReadiness(d, reported, { ready: false }, { outcome: 'patched', object: SERVER });
      assert.deepEqual(recorded, []);
    });
  });

  describe('ensureWorkload', () => {
    it('reports a refused Deployment in the status (WorkloadNotApplied) and throws', async () => {
      const api = await startFakeApiServer((req, res) => {
        if (req.path.endsWith('/status')) return sendJson(res, 200, SERVER);
        sendJson(res, 403, kubeStatus(403, 'Forbidden', 'exceeded quota'));
      });
      try {
        await assert.rejects(
          ensureWorkload(deps([], api.kc), SERVER, 'sum'),
          (err: { code?: number }) => err.code === 403,
        );
        const write = api.requests.find((r) => r.path.endsWith('/status'));
        const { status } = JSON.parse(write?.body ?? '{}') as { status: McpServerStatus };
        assert.equal(status.ready, false);
        assert.deepEqual(
          status.conditions?.map((c) => [c.type, c.reason, c.message]),
          ['Available', 'Ready'].map((type) => [
            type,
            'WorkloadNotApplied',
            'the cluster refused the workload: HTTP 403 (Forbidden): exceeded quota',
          ]),
        );
      } finally {
        await api.close();
      }
    });
  });
});
