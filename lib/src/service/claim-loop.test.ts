import assert from 'node:assert/strict';
import { ClaimLoop } from './claim-loop.js';

/** A queue of item ids the loop claims from, with the work held until the test lets it end. */
function harness(ids: string[], concurrency: number) {
  const queue = [...ids];
  const running = new Map<string, { controller: AbortController; end: () => void }>();
  const ended: { id: string; reason: unknown }[] = [];
  const released: string[][] = [];
  const loop = new ClaimLoop<{ id: string }>({
    concurrency,
    pollMs: 60_000,
    claim: () => Promise.resolve(queue.length > 0 ? { id: queue.shift()! } : undefined),
    work: (item, controller) =>
      new Promise<void>((resolve) => {
        const end = () => {
          running.delete(item.id);
          ended.push({ id: item.id, reason: controller.signal.reason });
          resolve();
        };
        running.set(item.id, { controller, end });
        controller.signal.addEventListener('abort', end);
      }),
    release: (ids) => {
      released.push(ids);
      return Promise.resolve();
    },
    failed: (err) => assert.fail(String(err)),
  });
  return { loop, queue, running, ended, released };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('the claim loop of leased work', function () {
  it('works at most `concurrency` items at once, and claims the next when one ends', async function () {
    const h = harness(['a', 'b', 'c'], 2);
    h.loop.start();
    await settle();
    assert.deepEqual([...h.running.keys()], ['a', 'b']);
    h.running.get('a')!.end();
    await settle();
    await settle();
    assert.deepEqual([...h.running.keys()], ['b', 'c']);
    await h.loop.stop();
  });

  it('aborts one item with the given reason, and on stop aborts the rest with stopping and releases them', async function () {
    const h = harness(['a', 'b'], 2);
    h.loop.start();
    await settle();
    await h.loop.abort('a', 'cancelled');
    assert.deepEqual(h.ended, [{ id: 'a', reason: 'cancelled' }]);
    await h.loop.stop();
    assert.deepEqual(h.ended[1], { id: 'b', reason: 'stopping' });
    assert.deepEqual(h.released, [['b']]);
    h.loop.kick(); // stopped: claims nothing more
    await settle();
    assert.equal(h.running.size, 0);
  });
});
