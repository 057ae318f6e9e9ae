import assert from 'node:assert/strict';
import { kubeConfig } from './harness.js';
import { objectApi, uniqueName } from './kube-helpers.js';
import {
  labelledTenant,
  placeholderOperatorSuite,
  readTenant,
  reconciledMessage,
  renameTenant,
} from './operator-helpers.js';

describe('operator runtime against the real apiserver', function () {
  const { label, handle } = placeholderOperatorSuite('rt', 'placeholder-inproc');

  it('reconciles a created object and writes status with observedGeneration', async function () {
    const slug = uniqueName('new');
    await objectApi(kubeConfig()).create(labelledTenant(slug, label));
    const message = await reconciledMessage(slug, 1);
    assert.equal(message, 'reconciled by placeholder-inproc at generation 1');
    const t = await readTenant(slug);
    assert.equal(t.status?.phase, 'Pending');
    const ready = t.status?.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.observedGeneration, 1);
    assert.ok(ready?.lastTransitionTime, 'lastTransitionTime is set');
  });

  it('reconciles again after a spec change bumps the generation, keeping lastTransitionTime', async function () {
    const slug = uniqueName('chg');
    await objectApi(kubeConfig()).create(labelledTenant(slug, label));
    await reconciledMessage(slug, 1);
    const before = await readTenant(slug);
    const firstTransition = before.status?.conditions?.[0]?.lastTransitionTime;
    assert.equal(await renameTenant(slug, 'Renamed'), 2);
    assert.equal(
      await reconciledMessage(slug, 2),
      'reconciled by placeholder-inproc at generation 2',
    );
    const after = await readTenant(slug);
    assert.equal(after.status?.conditions?.[0]?.observedGeneration, 2);
    // Same status (False), so the transition time must not move.
    assert.equal(after.status?.conditions?.[0]?.lastTransitionTime, firstTransition);
  });

  it('does not reconcile objects outside its label selector', async function () {
    const slug = uniqueName('other');
    await objectApi(kubeConfig()).create(labelledTenant(slug, 'someone-else'));
    const mine = uniqueName('mine');
    await objectApi(kubeConfig()).create(labelledTenant(mine, label));
    await reconciledMessage(mine, 1); // the queue has moved past the other object by now
    assert.equal((await readTenant(slug)).status, undefined);
  });

  it('reports ready and serves metrics with reconcile counts', async function () {
    assert.equal(handle().ready(), true);
    const res = await fetch(`http://127.0.0.1:${handle().port}/metrics`);
    const text = await res.text();
    assert.match(
      text,
      /aiplane_reconcile_total\{controller="placeholder",result="success"\} [1-9]/,
    );
    assert.equal((await fetch(`http://127.0.0.1:${handle().port}/readyz`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${handle().port}/healthz`)).status, 200);
  });
});
