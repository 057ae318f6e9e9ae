import assert from 'node:assert/strict';
import { waitFor } from '@aiplane/hack';
import { environment, kubeConfig } from './harness.js';
import { objectApi, uniqueName } from './kube-helpers.js';
import { labelledTenant, placeholderOperatorSuite, reconciledMessage } from './operator-helpers.js';

describe('informers across a kube-apiserver restart', function () {
  const { label, handle } = placeholderOperatorSuite('restart', 'placeholder-restart');

  /** aiplane_watch_restarts_total over every resource, from the operator's own /metrics. */
  async function watchRestarts(): Promise<number> {
    const metrics = await (await fetch(`http://127.0.0.1:${handle().port}/metrics`)).text();
    return [...metrics.matchAll(/^aiplane_watch_restarts_total(?:\{[^}]*\})? (\d+)$/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  }

  it('recovers its watches and reconciles objects created after the restart', async function () {
    const before = uniqueName('pre');
    await objectApi(kubeConfig()).create(labelledTenant(before, label));
    await reconciledMessage(before, 1);
    const restartsBefore = await watchRestarts();

    const cp = environment().controlPlane;
    await cp.stopApiserver();
    try {
      // The watch fails while the apiserver is down: the informer counts a restart.
      await waitFor('the watch to fail and the informer to count a restart', async () => {
        return (await watchRestarts()) > restartsBefore;
      });
    } finally {
      await cp.startApiserver();
    }

    const after = uniqueName('post');
    await objectApi(kubeConfig()).create(labelledTenant(after, label));
    assert.equal(
      await reconciledMessage(after, 1),
      'reconciled by placeholder-restart at generation 1',
    );
  });
});
