import assert from 'node:assert/strict';
import { AudioPace, SessionSlots } from './session-limits.js';

describe('SessionSlots', function () {
  it('holds each user to its cap and gives slots back once', function () {
    const slots = new SessionSlots(2, 10);
    const a = slots.take('u1', 'o1');
    const b = slots.take('u1', 'o1');
    assert.equal(typeof a, 'function');
    assert.equal(typeof b, 'function');
    assert.equal(slots.take('u1', 'o1'), 'user');
    assert.equal(typeof slots.take('u2', 'o1'), 'function', 'another user is not held');
    (a as () => void)();
    (a as () => void)(); // twice gives back one slot only
    assert.equal(slots.open, 2);
    assert.equal(typeof slots.take('u1', 'o1'), 'function');
    assert.equal(slots.take('u1', 'o1'), 'user');
  });

  it('holds an organization to its cap across its users', function () {
    const slots = new SessionSlots(5, 3);
    for (const u of ['u1', 'u2', 'u3']) assert.equal(typeof slots.take(u, 'o1'), 'function');
    assert.equal(slots.take('u4', 'o1'), 'organization');
    assert.equal(typeof slots.take('u4', 'o2'), 'function', 'another organization is not held');
  });
});

describe('AudioPace', function () {
  it('allows the burst at once, then the factor times real time, and no more', function () {
    let now = 1000;
    const pace = new AudioPace(4, 2000, () => now);
    assert.equal(pace.add(2000), true, 'the burst');
    assert.equal(pace.add(1), false, 'nothing beyond it at once');
    now += 1000; // 4 s more allowed
    assert.equal(pace.add(3999), true);
    assert.equal(pace.add(1), false);
    assert.equal(pace.total, 6001);
  });

  it('starts its clock at the first audio, not when it was made', function () {
    let now = 0;
    const pace = new AudioPace(1, 0, () => now);
    now = 60_000; // a minute of handshake and silence earns nothing
    assert.equal(pace.add(10), false);
  });
});
