import assert from 'node:assert/strict';
import { V1MicroTime } from '@kubernetes/client-node';
import { coordinationLeaseClient } from './lease-client.js';
import { type FakeApiServer, kubeStatus, sendJson, startFakeApiServer } from '@aiplane/lib/testing';

describe('coordinationLeaseClient', () => {
  let server: FakeApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('reads a missing lease as undefined', async () => {
    server = await startFakeApiServer((_req, res) =>
      sendJson(res, 404, kubeStatus(404, 'NotFound')),
    );
    const leases = coordinationLeaseClient(server.kc);
    assert.equal(await leases.read('aiplane-system', 'operator'), undefined);
    assert.equal(
      server.requests[0]?.path,
      '/apis/coordination.k8s.io/v1/namespaces/aiplane-system/leases/operator',
    );
  });

  it('writes renewTime with microsecond precision and passes resourceVersion for compare-and-swap', async () => {
    server = await startFakeApiServer((req, res) => sendJson(res, 200, JSON.parse(req.body)));
    const leases = coordinationLeaseClient(server.kc);
    await leases.replace('aiplane-system', 'operator', {
      metadata: { name: 'operator', resourceVersion: '17' },
      spec: { holderIdentity: 'a', renewTime: new V1MicroTime('2026-01-01T00:00:00.123Z') },
    });
    const [request] = server.requests;
    assert.equal(request?.method, 'PUT');
    const body = JSON.parse(request?.body ?? '') as {
      metadata: { resourceVersion: string };
      spec: { renewTime: string };
    };
    assert.equal(body.spec.renewTime, '2026-01-01T00:00:00.123000Z');
    assert.equal(body.metadata.resourceVersion, '17');
  });

  it('aborts a request when its signal fires', async () => {
    server = await startFakeApiServer(() => undefined); // never answers
    const leases = coordinationLeaseClient(server.kc);
    await assert.rejects(leases.read('ns', 'x', AbortSignal.timeout(50)));
  });
});
