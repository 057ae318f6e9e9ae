import assert from 'node:assert/strict';
import { AudioInvalid } from './audio-errors.js';
import { bytesPerSecond, PcmToMono, toS16 } from './pcm.js';
import { PcmDecoder, WavDecoder } from './pcm-decoder.js';
import { wavFile } from './wav-header.js';

describe('PcmToMono', function () {
  it('averages interleaved channels', function () {
    const b = Buffer.alloc(8);
    b.writeInt16LE(16384, 0); // left ½
    b.writeInt16LE(0, 2); // right 0
    b.writeInt16LE(-16384, 4);
    b.writeInt16LE(-16384, 6);
    assert.deepEqual(
      [...new PcmToMono({ sampleFormat: 's16', sampleRate: 16000, channels: 2 }).push(b)],
      [0.25, -0.5],
    );
  });

  it('keeps a sample frame split across chunks for the next one', function () {
    const f = Buffer.alloc(8);
    f.writeFloatLE(0.5, 0);
    f.writeFloatLE(-0.25, 4);
    const mono = new PcmToMono({ sampleFormat: 'f32', sampleRate: 48000, channels: 1 });
    assert.deepEqual([...mono.push(f.subarray(0, 3))], []);
    assert.deepEqual([...mono.push(f.subarray(3, 6))], [0.5]);
    assert.deepEqual([...mono.push(f.subarray(6))], [-0.25]);
  });

  it('reads 8-bit unsigned, 24- and 32-bit signed samples', function () {
    const u8 = new PcmToMono({ sampleFormat: 'u8', sampleRate: 8000, channels: 1 });
    assert.deepEqual([...u8.push(Buffer.from([128, 0, 192]))], [0, -1, 0.5]);
    const s24 = Buffer.alloc(3);
    s24.writeIntLE(-4194304, 0, 3);
    assert.deepEqual(
      [...new PcmToMono({ sampleFormat: 's24', sampleRate: 8000, channels: 1 }).push(s24)],
      [-0.5],
    );
    const s32 = Buffer.alloc(4);
    s32.writeInt32LE(1073741824, 0);
    assert.deepEqual(
      [...new PcmToMono({ sampleFormat: 's32', sampleRate: 8000, channels: 1 }).push(s32)],
      [0.5],
    );
  });

  it('clips floats beyond ±1 and refuses ones that are not numbers', function () {
    const f = Buffer.alloc(8);
    f.writeFloatLE(3, 0);
    f.writeFloatLE(-7, 4);
    const mono = new PcmToMono({ sampleFormat: 'f32', sampleRate: 16000, channels: 1 });
    assert.deepEqual([...mono.push(f)], [1, -1]);
    f.writeFloatLE(Number.NaN, 0);
    assert.throws(() => mono.push(f), AudioInvalid);
  });

  it('knows a format’s byte rate', function () {
    assert.equal(bytesPerSecond({ sampleFormat: 'f32', sampleRate: 48000, channels: 2 }), 384000);
  });
});

describe('toS16', function () {
  it('rounds and clips', function () {
    const out = toS16(Float32Array.from([0, 0.5, 1, -1, 2]));
    assert.deepEqual(
      [0, 2, 4, 6, 8].map((at) => out.readInt16LE(at)),
      [0, 16384, 32767, -32767, 32767],
    );
  });
});

/** Everything a Transform gives for these chunks. */
async function through(t: NodeJS.ReadWriteStream, chunks: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  t.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((resolve, reject) => {
    t.on('end', resolve);
    t.on('error', reject);
  });
  for (const c of chunks) t.write(c);
  t.end();
  await done;
  return Buffer.concat(out);
}

describe('the PCM and WAV decoders', function () {
  it('turn 48 kHz stereo float into 16 kHz mono s16 of the same duration', async function () {
    const seconds = 0.5;
    const b = Buffer.alloc(48000 * seconds * 8);
    const out = await through(
      new PcmDecoder({ sampleFormat: 'f32', sampleRate: 48000, channels: 2 }),
      [b],
    );
    assert.equal(out.length, 16000 * seconds * 2);
  });

  it('read a WAV’s header across chunks and stop at the end of its data chunk', async function () {
    const samples = Buffer.alloc(3200, 1);
    const wav = Buffer.concat([
      wavFile(samples, 16000),
      Buffer.from('LIST\x04\0\0\0abcd', 'latin1'),
    ]);
    const out = await through(new WavDecoder(), [
      wav.subarray(0, 10),
      wav.subarray(10, 50),
      wav.subarray(50),
    ]);
    assert.deepEqual(out, samples, '16 kHz mono passes through; the trailing chunk is not audio');
  });

  it('refuse a stream that ends inside the WAV header', async function () {
    await assert.rejects(
      through(new WavDecoder(), [Buffer.from('RIFF\0\0', 'latin1')]),
      /ended before its WAV header/,
    );
  });
});
