import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { OwnWrites } from './own-writes.js';

const deployment = (resourceVersion: string): KubernetesObject => ({
  metadata: { namespace: 'tenant-acme', name: 'github', resourceVersion },
});
const KEY = 'tenant-acme/github';

/** Classifies `obj`; the verdicts so far. */
function sort(w: OwnWrites, obj: KubernetesObject, verdicts: string[]): void {
  w.classify(obj, (echo) =>
    verdicts.push(`${obj.metadata?.resourceVersion ?? ''} ${echo ? 'echo' : 'change'}`),
  );
}

describe('OwnWrites', function () {
  it('calls the event of its last write an echo, and any other a change, at once', function () {
    const w = new OwnWrites();
    const verdicts: string[] = [];
    sort(w, deployment('3'), verdicts);
    w.begin(KEY);
    w.remember(deployment('4'));
    sort(w, deployment('4'), verdicts);
    sort(w, deployment('5'), verdicts);
    assert.deepEqual(verdicts, ['3 change', '4 echo', '5 change']);
    w.forget(KEY);
    sort(w, deployment('4'), []);
    assert.equal(w.size, 0);
  });

  it('holds the events that come before the write answers, and sorts them when it does', function () {
    const w = new OwnWrites();
    const verdicts: string[] = [];
    w.begin(KEY);
    sort(w, deployment('4'), verdicts); // its own write's event, ahead of the answer
    sort(w, deployment('5'), verdicts); // someone else's, meanwhile
    assert.deepEqual(verdicts, [], 'nothing decided while the write is under way');
    w.remember(deployment('4'));
    assert.deepEqual(verdicts, ['4 echo', '5 change']);
  });

  it('calls every held event a change when the write fails', function () {
    const w = new OwnWrites();
    const verdicts: string[] = [];
    w.begin(KEY);
    sort(w, deployment('4'), verdicts);
    w.abandon(KEY);
    assert.deepEqual(verdicts, ['4 change']);
    sort(w, deployment('6'), verdicts);
    assert.deepEqual(verdicts, ['4 change', '6 change'], 'nothing under way any more');
  });
});
