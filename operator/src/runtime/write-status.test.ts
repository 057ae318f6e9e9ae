import assert from 'node:assert/strict';
import { type FakeApiServer, sendJson, startFakeApiServer } from '@aiplane/lib/testing';
import { formatKubeTime } from './kube-time.js';
import { type StatusKind, writeStatus } from './write-status.js';

const KIND = { group: 'aiplane.io', version: 'v1alpha1' };

describe('writeStatus', () => {
  let server: FakeApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const echoServer = () =>
    startFakeApiServer((req, res) => {
      const patch = JSON.parse(req.body) as { status: unknown };
      sendJson(res, 200, { metadata: { name: 'x' }, status: patch.status });
    });

  it('writes a cluster-scoped kind at its path, without a precondition unless the kind asks', async () => {
    server = await echoServer();
    const kind: StatusKind = {
      ...KIND,
      plural: 'tenantlifecycles',
      namespaced: false,
      precondition: false,
    };
    const object = { metadata: { name: 'acme', resourceVersion: '7' }, status: { phase: 'Old' } };
    const result = await writeStatus(server.kc, kind, object, { phase: 'Ready' });
    assert.equal(result.outcome, 'patched');
    const [request] = server.requests;
    assert.equal(request?.path, '/apis/aiplane.io/v1alpha1/tenantlifecycles/acme/status');
    assert.equal(request?.query.get('fieldManager'), null);
    assert.deepEqual(JSON.parse(request?.body ?? ''), { status: { phase: 'Ready' } });
  });

  it("writes a namespaced kind at its object's namespace, as its field manager, over the version read", async () => {
    server = await echoServer();
    const kind: StatusKind = {
      ...KIND,
      plural: 'mcpservers',
      namespaced: true,
      precondition: true,
      fieldManager: 'aiplane-operator',
    };
    const object = { metadata: { name: 'files', namespace: 'tenant-acme', resourceVersion: '7' } };
    await writeStatus(server.kc, kind, object, { ready: true });
    const [request] = server.requests;
    assert.equal(
      request?.path,
      '/apis/aiplane.io/v1alpha1/namespaces/tenant-acme/mcpservers/files/status',
    );
    assert.equal(request?.query.get('fieldManager'), 'aiplane-operator');
    assert.deepEqual(JSON.parse(request?.body ?? ''), {
      metadata: { resourceVersion: '7' },
      status: { ready: true },
    });
  });

  it('sends nothing when the object already carries that status', async () => {
    server = await echoServer();
    const kind: StatusKind = { ...KIND, plural: 'x', namespaced: false, precondition: true };
    const object = { metadata: { name: 'a' }, status: { ready: true } };
    assert.deepEqual(await writeStatus(server.kc, kind, object, { ready: true }), {
      outcome: 'unchanged',
    });
    assert.equal(server.requests.length, 0);
  });
});

describe('formatKubeTime', () => {
  it('writes whole seconds in UTC with a Z, as metav1.Time does', () => {
    assert.equal(formatKubeTime(new Date('2026-01-01T00:05:00.456Z')), '2026-01-01T00:05:00Z');
  });
});
