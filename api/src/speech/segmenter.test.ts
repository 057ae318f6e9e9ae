import assert from 'node:assert/strict';
import { Segmenter, type Utterance } from './segmenter.js';

/** 16 kHz s16: `ms` of a 300 Hz tone at `amplitude` (0 is digital silence). */
function sound(ms: number, amplitude: number): Buffer {
  const n = ms * 16;
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i += 1) {
    b.writeInt16LE(
      Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 300 * i) / 16000)),
      i * 2,
    );
  }
  return b;
}

function segment(s: Segmenter, parts: Buffer[], chunk = 1000): Utterance[] {
  const audio = Buffer.concat(parts);
  const out: Utterance[] = [];
  for (let at = 0; at < audio.length; at += chunk)
    out.push(...s.push(audio.subarray(at, at + chunk)));
  const last = s.flush();
  if (last) out.push(last);
  return out;
}

describe('Segmenter', function () {
  it('cuts utterances at pauses, with a little audio before each', function () {
    const u = segment(new Segmenter({ pauseMs: 500 }), [
      sound(500, 0),
      sound(1000, 0.3),
      sound(700, 0),
      sound(800, 0.3),
      sound(600, 0),
    ]);
    assert.equal(u.length, 2);
    const [a, b] = u as [Utterance, Utterance];
    assert.ok(a.startMs >= 260 && a.startMs <= 320, `first starts ${a.startMs}`);
    assert.ok(a.endMs >= 1500 && a.endMs <= 1540, `first ends ${a.endMs}`);
    assert.ok(b.startMs >= 1960 && b.startMs <= 2020, `second starts ${b.startMs}`);
    assert.equal(a.pcm.length, (a.endMs - a.startMs) * 32);
  });

  it('keeps an utterance whole across a pause shorter than pauseMs', function () {
    const u = segment(new Segmenter({ pauseMs: 500 }), [
      sound(600, 0.3),
      sound(300, 0),
      sound(600, 0.3),
      sound(600, 0),
    ]);
    assert.equal(u.length, 1);
  });

  it('ignores a click shorter than minSpeechMs and quiet noise', function () {
    const u = segment(new Segmenter({ pauseMs: 300 }), [
      sound(300, 0),
      sound(20, 0.5),
      sound(300, 0),
      sound(1000, 0.0005), // about -70 dBFS
    ]);
    assert.deepEqual(u, []);
  });

  it('cuts an utterance longer than maxUtteranceMs there and goes on', function () {
    const u = segment(new Segmenter({ pauseMs: 300, maxUtteranceMs: 1000 }), [
      sound(2500, 0.3),
      sound(400, 0),
    ]);
    assert.equal(u.length, 3);
    assert.ok(u.every((x) => x.endMs - x.startMs <= 1000));
  });

  it('gives the utterance heard so far while it runs, and the last one at the end', function () {
    const s = new Segmenter({ pauseMs: 500 });
    s.push(Buffer.concat([sound(200, 0), sound(400, 0.3)]));
    const partial = s.partial();
    assert.ok(partial && partial.endMs === 600, JSON.stringify(partial && { ...partial, pcm: 0 }));
    assert.ok(s.flush());
    assert.equal(s.partial(), undefined);
  });
});
