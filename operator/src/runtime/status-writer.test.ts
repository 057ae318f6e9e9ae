import assert from 'node:assert/strict';
import { ConflictError } from '@aiplane/lib';
import { patchStatus, replacingMergePatch } from './status-writer.js';
import { type StatusKind, writeStatus } from './write-status.js';
import { type FakeApiServer, kubeStatus, sendJson, startFakeApiServer } from '@aiplane/lib/testing';

const TENANT = {
  group: 'aiplane.io',
  version: 'v1alpha1',
  plural: 'tenantlifecycles',
  name: 'acme',
};

describe('patchStatus', () => {
  let server: FakeApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function echoServer(status = 200) {
    return startFakeApiServer((req, res) => {
      if (status !== 200)
        return sendJson(res, status, kubeStatus(status, status === 409 ? 'Conflict' : 'NotFound'));
      const patch = JSON.parse(req.body) as { status: unknown };
      sendJson(res, 200, {
        apiVersion: 'aiplane.io/v1alpha1',
        kind: 'TenantLifecycle',
        metadata: { name: 'acme' },
        status: patch.status,
      });
    });
  }

  it('sends nothing when the desired status equals the current one', async () => {
    server = await echoServer();
    const current = { phase: 'Ready', conditions: [{ type: 'Ready', status: 'True' }] };
    const result = await patchStatus(
      server.kc,
      TENANT,
      { conditions: [{ status: 'True', type: 'Ready' }], phase: 'Ready' },
      current,
    );
    assert.deepEqual(result, { outcome: 'unchanged' });
    assert.equal(server.requests.length, 0);
  });

  it('merge-patches the status subresource of a cluster-scoped object and returns the answer', async () => {
    server = await echoServer();
    const result = await patchStatus(
      server.kc,
      { ...TENANT, resourceVersion: '42' },
      { phase: 'Ready' },
      { phase: 'Provisioning', stage: 'namespace' },
    );
    const [request] = server.requests;
    assert.equal(request?.method, 'PATCH');
    assert.equal(request?.path, '/apis/aiplane.io/v1alpha1/tenantlifecycles/acme/status');
    assert.equal(request?.headers['content-type'], 'application/merge-patch+json');
    assert.deepEqual(JSON.parse(request?.body ?? ''), {
      metadata: { resourceVersion: '42' },
      status: { phase: 'Ready', stage: null },
    });
    assert.equal(result.outcome, 'patched');
    assert.deepEqual(result.outcome === 'patched' && result.object.metadata, { name: 'acme' });
  });

  it('uses the namespaced path for a namespaced object and omits the precondition without a resourceVersion', async () => {
    server = await echoServer();
    await patchStatus(
      server.kc,
      {
        group: 'aiplane.io',
        version: 'v1alpha1',
        plural: 'mcpservers',
        name: 'github',
        namespace: 'tenant-acme',
      },
      { ready: true },
      undefined,
    );
    assert.equal(
      server.requests[0]?.path,
      '/apis/aiplane.io/v1alpha1/namespaces/tenant-acme/mcpservers/github/status',
    );
    assert.deepEqual(JSON.parse(server.requests[0]?.body ?? ''), { status: { ready: true } });
  });

  it('reports an object that is gone instead of failing', async () => {
    server = await echoServer(404);
    assert.deepEqual(await patchStatus(server.kc, TENANT, { phase: 'Ready' }, {}), {
      outcome: 'gone',
    });
  });

  it('turns a 409 into a ConflictError for a quiet requeue', async () => {
    server = await echoServer(409);
    await assert.rejects(
      patchStatus(server.kc, { ...TENANT, resourceVersion: '1' }, { phase: 'Ready' }, {}),
      ConflictError,
    );
  });

  it('passes other failures through', async () => {
    server = await echoServer(422);
    await assert.rejects(
      patchStatus(server.kc, TENANT, { phase: 'Nope' }, {}),
      (err: { code?: number }) => err.code === 422,
    );
  });
});

describe('writeStatus', () => {
  const CLUSTER_SCOPED: StatusKind = { ...TENANT, namespaced: false, precondition: false };
  const NAMESPACED: StatusKind = {
    ...TENANT,
    plural: 'mcpservers',
    namespaced: true,
    precondition: true,
    fieldManager: 'aiplane-operator',
  };
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
    const object = { metadata: { name: 'acme', resourceVersion: '7' }, status: { phase: 'Old' } };
    const result = await writeStatus(server.kc, CLUSTER_SCOPED, object, { phase: 'Ready' });
    assert.equal(result.outcome, 'patched');
    const [request] = server.requests;
    assert.equal(request?.path, '/apis/aiplane.io/v1alpha1/tenantlifecycles/acme/status');
    assert.equal(request?.query.get('fieldManager'), null);
    assert.deepEqual(JSON.parse(request?.body ?? ''), { status: { phase: 'Ready' } });
  });

  it("writes a namespaced kind at its object's namespace, as its field manager, over the version read", async () => {
    server = await echoServer();
    const object = { metadata: { name: 'files', namespace: 'tenant-acme', resourceVersion: '7' } };
    await writeStatus(server.kc, NAMESPACED, object, { ready: true });
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
    const object = { metadata: { name: 'a' }, status: { ready: true } };
    assert.deepEqual(await writeStatus(server.kc, NAMESPACED, object, { ready: true }), {
      outcome: 'unchanged',
    });
    assert.equal(server.requests.length, 0);
  });
});

describe('replacingMergePatch', () => {
  const cases: Array<{ name: string; current: unknown; desired: unknown; patch: unknown }> = [
    {
      name: 'removes fields missing from the desired value',
      current: { a: 1, b: 2 },
      desired: { a: 1 },
      patch: { a: 1, b: null },
    },
    {
      name: 'recurses into nested objects',
      current: { services: { identity: { ready: true, url: 'x' } } },
      desired: { services: { identity: { ready: false } } },
      patch: { services: { identity: { ready: false, url: null } } },
    },
    {
      name: 'replaces arrays whole',
      current: { conditions: [{ type: 'A' }, { type: 'B' }] },
      desired: { conditions: [{ type: 'B' }] },
      patch: { conditions: [{ type: 'B' }] },
    },
    {
      name: 'sends everything when there is no current value',
      current: undefined,
      desired: { phase: 'Pending' },
      patch: { phase: 'Pending' },
    },
    {
      name: 'drops undefined desired fields',
      current: {},
      desired: { phase: 'Pending', database: undefined },
      patch: { phase: 'Pending' },
    },
  ];
  for (const { name, current, desired, patch } of cases) {
    it(name, () => {
      assert.deepEqual(replacingMergePatch(current, desired), patch);
    });
  }
});
