import assert from 'node:assert/strict';
import type { ManagerHandle } from '@aiplane/operator/runtime';
import { environment, kubeConfig } from './harness.js';
import { objectApi, uniqueName } from './kube-helpers.js';
import { labelledTenant, reconciledMessage, startPlaceholderOperator } from './operator-helpers.js';

describe('informers across a kube-apiserver restart', function () {
  const label = uniqueName('restart');
  let handle: ManagerHandle;

  before(async function () {
    handle = await startPlaceholderOperator(label, 'placeholder-restart');
  });
  after(async function () {
    await handle?.stop();
  });

  it('recovers its watches and reconciles objects created after the restart', async function () {
    const before = uniqueName('pre');
    await objectApi(kubeConfig()).create(labelledTenant(before, label));
    await reconciledMessage(before, 1);

    const cp = environment().controlPlane;
    await cp.stopApiserver();
    await new Promise((r) => setTimeout(r, 3000)); // long enough for the watch to fail
    await cp.startApiserver();

    const after = uniqueName('post');
    await objectApi(kubeConfig()).create(labelledTenant(after, label));
    assert.equal(
      await reconciledMessage(after, 1),
      'reconciled by placeholder-restart at generation 1',
    );
    const metrics = await (await fetch(`http://127.0.0.1:${handle.port}/metrics`)).text();
    assert.match(
      metrics,
      /aiplane_watch_restarts_total\{[^}]*\} [1-9]/,
      'no watch restart was counted',
    );
  });
});
