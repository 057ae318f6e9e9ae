import assert from 'node:assert/strict';
import { backoffDelay } from '@aiplane/lib';
import { WorkQueue, type QueueTimers } from './work-queue.js';

/** Timers driven by `advance`, so delays are exact and tests take no wall time. */
class FakeTimers implements QueueTimers {
  private current = 0;
  private nextId = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.current;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.nextId;
    this.pending.set(id, { at: this.current + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  get scheduled(): number {
    return this.pending.size;
  }
  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const due = [...this.pending.entries()]
        .filter(([, t]) => t.at <= until)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.current = due[1].at;
      due[1].fn();
    }
    this.current = until;
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  it('hands out a key once however often it is added before being taken', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    assert.equal(queue.length, 2);
    assert.equal(await queue.get(), 'a');
    assert.equal(await queue.get(), 'b');
    assert.equal(queue.length, 0);
  });

  it('does not hand out a key that is being processed, and re-queues it after done when it was re-added', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const key = await queue.get();
    assert.equal(key, 'a');
    queue.add('a');
    assert.equal(queue.length, 0, 're-added key waits while in flight');
    let second: string | undefined;
    void queue.get().then((k) => (second = k));
    await settle();
    assert.equal(second, undefined);
    queue.done('a');
    await settle();
    assert.equal(second, 'a');
  });

  it('does not re-queue a processed key that was not added again', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.done((await queue.get()) as string);
    assert.equal(queue.length, 0);
  });

  it('never runs one key twice at once and never more workers than the concurrency', async () => {
    const queue = new WorkQueue();
    const active = new Set<string>();
    let peak = 0;
    let overlaps = 0;
    const runs: string[] = [];
    const handler = async (key: string) => {
      if (active.has(key)) overlaps++;
      active.add(key);
      peak = Math.max(peak, active.size);
      runs.push(key);
      if (key === 'a' && runs.filter((k) => k === 'a').length === 1) queue.add('a');
      await settle();
      active.delete(key);
    };
    for (const key of ['a', 'b', 'c', 'd', 'e']) queue.add(key);
    const running = queue.run(handler, 2);
    while (runs.length < 6) await settle();
    await queue.shutdown();
    await running;
    assert.equal(overlaps, 0);
    assert.equal(peak, 2);
    assert.equal(runs.filter((k) => k === 'a').length, 2, 'dirty key ran again after done');
  });

  describe('backoff', () => {
    const options = { baseMs: 5, maxMs: 1000, jitter: 0.1 };
    const cases: Array<{ attempt: number; full: number }> = [
      { attempt: 0, full: 5 },
      { attempt: 1, full: 10 },
      { attempt: 2, full: 20 },
      { attempt: 5, full: 160 },
      { attempt: 8, full: 1000 },
      { attempt: 40, full: 1000 },
    ];
    for (const { attempt, full } of cases) {
      it(`waits between 90% and 100% of ${full} ms on attempt ${attempt}`, () => {
        assert.equal(
          backoffDelay(attempt, options, () => 0),
          full,
        );
        const lowest = backoffDelay(attempt, options, () => 0.999999);
        assert.ok(lowest >= full * 0.9 && lowest < full, `got ${lowest}`);
        for (let i = 0; i < 50; i++) {
          const delay = backoffDelay(attempt, options);
          assert.ok(delay >= full * 0.9 && delay <= full, `got ${delay}`);
        }
      });
    }
  });

  it('re-adds a failed key only after a backoff that doubles per failure', () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers, random: () => 0 });
    assert.deepEqual(
      [1, 2, 3, 4].map(() => queue.addRateLimited('a')),
      [5, 5, 5, 5].map((base, i) => base * 2 ** i),
    );
    assert.equal(queue.numRequeues('a'), 4);
    assert.equal(queue.length, 0);
    timers.advance(4);
    assert.equal(queue.length, 0);
    timers.advance(1);
    assert.equal(queue.length, 1);
  });

  it('restarts the backoff at the base delay after forget', () => {
    const queue = new WorkQueue({ timers: new FakeTimers(), random: () => 0 });
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    assert.equal(queue.addRateLimited('a'), 20);
    queue.forget('a');
    assert.equal(queue.numRequeues('a'), 0);
    assert.equal(queue.addRateLimited('a'), 5);
  });

  it('adds a key after the requested delay, keeping the earliest deadline', () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers });
    queue.addAfter('a', 100);
    queue.addAfter('a', 500);
    queue.addAfter('b', 300);
    queue.addAfter('b', 50);
    assert.equal(timers.scheduled, 2);
    timers.advance(49);
    assert.equal(queue.length, 0);
    timers.advance(1);
    assert.equal(queue.length, 1, 'b at its earlier deadline');
    timers.advance(50);
    assert.equal(queue.length, 2, 'a at 100 ms, not 500 ms');
    timers.advance(1000);
    assert.equal(queue.length, 2);
  });

  it('adds immediately when the delay is zero', () => {
    const queue = new WorkQueue({ timers: new FakeTimers() });
    queue.addAfter('a', 0);
    assert.equal(queue.length, 1);
  });

  it('on shutdown wakes idle getters, drops queued and delayed keys, and waits for in-flight keys', async () => {
    const timers = new FakeTimers();
    const queue = new WorkQueue({ timers });
    queue.add('a');
    queue.add('b');
    queue.addAfter('c', 10);
    const inFlight = await queue.get();
    let drained = false;
    const shutdown = queue.shutdown().then(() => (drained = true));
    assert.equal(await queue.get(), undefined);
    assert.equal(queue.length, 0);
    assert.equal(timers.scheduled, 0);
    queue.add('d');
    assert.equal(queue.length, 0, 'adds after shutdown are ignored');
    await settle();
    assert.equal(drained, false);
    queue.done(inFlight as string);
    await shutdown;
    assert.equal(drained, true);
  });

  it('reports the depth of ready keys as it changes', async () => {
    const depths: number[] = [];
    const queue = new WorkQueue({ onDepthChange: (d) => depths.push(d) });
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.done((await queue.get()) as string);
    await queue.shutdown();
    assert.deepEqual(depths, [1, 2, 1, 0]);
  });
});
