import assert from 'node:assert/strict';
import { waitUntil, WaitTimeout } from './wait-until.js';

/** A fake clock: `sleep` advances it, so waits take no real time. */
function fakeClock() {
  let t = 1_000_000;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: (ms: number) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
    slept,
  };
}

describe('waitUntil', function () {
  it('answers the first observation that satisfies the condition, after polling at the interval', async function () {
    const clock = fakeClock();
    let n = 0;
    const value = await waitUntil(() => Promise.resolve(++n), {
      what: 'n to reach 3',
      until: (v) => v >= 3,
      timeoutMs: 10_000,
      intervalMs: 500,
      ...clock,
    });
    assert.equal(value, 3);
    assert.deepEqual(clock.slept, [500, 500]);
  });

  it('throws a WaitTimeout naming what it waited for and the last observed value', async function () {
    const clock = fakeClock();
    const phases = ['Pending', 'Provisioning', 'Provisioning'];
    let i = 0;
    const err = await waitUntil(() => Promise.resolve({ phase: phases[Math.min(i++, 2)] }), {
      what: 'tenant acme to be Ready',
      until: (r) => r.phase === 'Ready',
      timeoutMs: 2000,
      intervalMs: 1000,
      ...clock,
    }).then(
      () => assert.fail('it resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WaitTimeout);
    assert.equal(err.what, 'tenant acme to be Ready');
    assert.match(err.message, /timed out after 2000 ms waiting for tenant acme to be Ready/);
    assert.match(err.message, /last observed: \{"phase":"Provisioning"\}/);
  });

  it('treats a throwing observation as not yet, and reports its message when time runs out', async function () {
    const clock = fakeClock();
    let calls = 0;
    const err = await waitUntil(
      () => {
        calls += 1;
        return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:8080'));
      },
      { what: 'the API', until: () => true, timeoutMs: 3000, intervalMs: 1000, ...clock },
    ).catch((e: unknown) => e as Error);
    assert.equal(calls, 4);
    assert.match(err.message, /last observed: error: connect ECONNREFUSED 127\.0\.0\.1:8080/);
  });

  it('recovers when an observation fails before a good one', async function () {
    const clock = fakeClock();
    let calls = 0;
    const value = await waitUntil(
      () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('not yet')) : Promise.resolve('ok');
      },
      { what: 'ok', until: (v) => v === 'ok', timeoutMs: 5000, intervalMs: 100, ...clock },
    );
    assert.equal(value, 'ok');
  });

  it('uses describe for the failure message, so a poll can hide or shorten what it saw', async function () {
    const clock = fakeClock();
    const err = await waitUntil(
      () => Promise.resolve({ token: 'secret-value', phase: 'Pending' }),
      {
        what: 'x',
        until: () => false,
        timeoutMs: 0,
        intervalMs: 100,
        describe: (v) => `phase ${v.phase}`,
        ...clock,
      },
    ).catch((e: unknown) => e as Error);
    assert.match((err as Error).message, /last observed: phase Pending$/);
    assert.doesNotMatch((err as Error).message, /secret-value/);
  });

  it('observes once even with a zero timeout, and never sleeps past the deadline', async function () {
    const clock = fakeClock();
    assert.equal(
      await waitUntil(() => Promise.resolve(1), {
        what: 'one',
        until: (v) => v === 1,
        timeoutMs: 0,
        intervalMs: 1000,
        ...clock,
      }),
      1,
    );
    await waitUntil(() => Promise.resolve(0), {
      what: 'never',
      until: () => false,
      timeoutMs: 2500,
      intervalMs: 1000,
      ...clock,
    }).catch(() => undefined);
    assert.deepEqual(clock.slept, [1000, 1000, 500]);
  });
});
