import { AudioInvalid } from './audio-errors.js';

/** Little-endian interleaved samples: unsigned 8-bit, signed 16/24/32-bit, 32-bit float. */
export type SampleFormat = 'u8' | 's16' | 's24' | 's32' | 'f32';

export const BYTES_PER_SAMPLE: Readonly<Record<SampleFormat, number>> = {
  u8: 1,
  s16: 2,
  s24: 3,
  s32: 4,
  f32: 4,
};

export interface PcmFormat {
  sampleFormat: SampleFormat;
  sampleRate: number;
  /** Interleaved channels, 1 to {@link MAX_CHANNELS}. */
  channels: number;
}

/** The most channels a stream may have; they are averaged into one. */
export const MAX_CHANNELS = 8;
/** The sample rates a stream may have (8 kHz telephony to 192 kHz studio audio). */
export const MIN_SAMPLE_RATE = 8000;
export const MAX_SAMPLE_RATE = 192_000;

/** Bytes of one second of audio in `format`. */
export function bytesPerSecond(format: PcmFormat): number {
  return format.sampleRate * format.channels * BYTES_PER_SAMPLE[format.sampleFormat];
}

/**
 * Interleaved PCM bytes to mono samples in [-1, 1] (channels averaged), chunk by chunk: a
 * sample frame split across two chunks waits for its rest. A float that is not finite is
 * corrupt audio ({@link AudioInvalid}); floats beyond ±1 are clipped.
 */
export class PcmToMono {
  private rest: Buffer = Buffer.alloc(0);
  private readonly frameBytes: number;

  constructor(private readonly format: PcmFormat) {
    this.frameBytes = format.channels * BYTES_PER_SAMPLE[format.sampleFormat];
  }

  push(chunk: Buffer): Float32Array {
    const bytes = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    const frames = Math.floor(bytes.length / this.frameBytes);
    this.rest = Buffer.from(bytes.subarray(frames * this.frameBytes));
    const { channels, sampleFormat } = this.format;
    const size = BYTES_PER_SAMPLE[sampleFormat];
    const read = sampleReader(sampleFormat);
    const out = new Float32Array(frames);
    for (let f = 0, at = 0; f < frames; f += 1) {
      let sum = 0;
      for (let c = 0; c < channels; c += 1, at += size) sum += read(bytes, at);
      const v = sum / channels;
      if (!Number.isFinite(v))
        throw new AudioInvalid('the audio holds a sample that is not a number');
      out[f] = v > 1 ? 1 : v < -1 ? -1 : v;
    }
    return out;
  }
}

function sampleReader(format: SampleFormat): (b: Buffer, at: number) => number {
  switch (format) {
    case 'u8':
      return (b, at) => ((b[at] as number) - 128) / 128;
    case 's16':
      return (b, at) => b.readInt16LE(at) / 32768;
    case 's24':
      return (b, at) => b.readIntLE(at, 3) / 8388608;
    case 's32':
      return (b, at) => b.readInt32LE(at) / 2147483648;
    case 'f32':
      return (b, at) => b.readFloatLE(at);
  }
}

/** Samples in [-1, 1] as signed 16-bit little-endian PCM (rounded, clipped). */
export function toS16(samples: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length * 2);
  for (let i = 0; i < samples.length; i += 1) {
    const v = Math.round((samples[i] as number) * 32767);
    out.writeInt16LE(v > 32767 ? 32767 : v < -32768 ? -32768 : v, i * 2);
  }
  return out;
}
