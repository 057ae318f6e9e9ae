import assert from 'node:assert/strict';
import { Resampler } from './resampler.js';

function tone(hz: number, rate: number, seconds: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i += 1)
    out[i] = amplitude * Math.sin((2 * Math.PI * hz * i) / rate);
  return out;
}

/** The amplitude of `hz` in `x` (a single-bin DFT), over the middle of the signal. */
function amplitudeAt(x: Float32Array, hz: number, rate: number): number {
  const from = Math.floor(x.length / 4);
  const to = Math.floor((3 * x.length) / 4);
  let re = 0;
  let im = 0;
  for (let i = from; i < to; i += 1) {
    re += (x[i] as number) * Math.cos((2 * Math.PI * hz * i) / rate);
    im += (x[i] as number) * Math.sin((2 * Math.PI * hz * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / (to - from);
}

function resampleAll(input: Float32Array, from: number, to: number, chunk: number): Float32Array {
  const r = new Resampler(from, to);
  const parts: Float32Array[] = [];
  for (let at = 0; at < input.length; at += chunk)
    parts.push(r.push(input.subarray(at, at + chunk)));
  parts.push(r.flush());
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('Resampler', function () {
  for (const from of [8000, 22050, 44100, 48000]) {
    it(`keeps a 1 kHz tone's frequency and amplitude from ${from} Hz to 16 kHz`, function () {
      const out = resampleAll(tone(1000, from, 1), from, 16000, 1237);
      assert.equal(out.length, 16000);
      assert.ok(Math.abs(amplitudeAt(out, 1000, 16000) - 0.5) < 0.01, 'amplitude kept');
      assert.ok(amplitudeAt(out, 1500, 16000) < 0.005, 'no energy elsewhere');
    });
  }

  it('removes what 16 kHz cannot carry instead of folding it into speech (48 kHz, 11 kHz tone)', function () {
    // Without the filter an 11 kHz tone would alias to 5 kHz at 16 kHz.
    const out = resampleAll(tone(11_000, 48_000, 1), 48_000, 16000, 4800);
    assert.ok(amplitudeAt(out, 5000, 16000) < 0.005, `aliased ${amplitudeAt(out, 5000, 16000)}`);
  });

  it('gives the same samples whatever the chunk sizes', function () {
    const input = tone(440, 44100, 0.5);
    const whole = resampleAll(input, 44100, 16000, input.length);
    for (const chunk of [1, 17, 441, 5000]) {
      const chunked = resampleAll(input, 44100, 16000, chunk);
      assert.equal(chunked.length, whole.length);
      for (let i = 0; i < whole.length; i += 1) {
        assert.ok(Math.abs((chunked[i] as number) - (whole[i] as number)) < 1e-6, `sample ${i}`);
      }
    }
  });

  it('passes audio at the output rate through untouched', function () {
    const input = tone(300, 16000, 0.1);
    const r = new Resampler(16000, 16000);
    assert.equal(r.push(input), input);
    assert.equal(r.flush().length, 0);
  });
});
