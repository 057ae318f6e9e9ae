import { Transform, type TransformCallback } from 'node:stream';
import { AudioInvalid } from './audio-errors.js';
import { type PcmFormat, PcmToMono, toS16 } from './pcm.js';
import { Resampler } from './resampler.js';
import { parseWavHeader, type WavHeader } from './wav-header.js';

/** The engines' input: 16 kHz mono signed 16-bit little-endian PCM. */
export const ENGINE_SAMPLE_RATE = 16000;

/** Bytes per millisecond of engine input. */
export const ENGINE_BYTES_PER_MS = (ENGINE_SAMPLE_RATE * 2) / 1000;

/** Interleaved PCM of a known format in, engine input out (channels averaged, resampled). */
class PcmConverter {
  private readonly mono: PcmToMono;
  private readonly resampler: Resampler;

  constructor(format: PcmFormat) {
    this.mono = new PcmToMono(format);
    this.resampler = new Resampler(format.sampleRate, ENGINE_SAMPLE_RATE);
  }

  push(chunk: Buffer): Buffer {
    return toS16(this.resampler.push(this.mono.push(chunk)));
  }

  flush(): Buffer {
    return toS16(this.resampler.flush());
  }
}

function run(cb: TransformCallback, work: () => void): void {
  try {
    work();
    cb();
  } catch (err) {
    cb(err instanceof AudioInvalid ? err : new AudioInvalid((err as Error).message));
  }
}

/** `pcm_int16` / `pcm_float32`: raw interleaved samples at the socket's `sample_rate_hz`. */
export class PcmDecoder extends Transform {
  private readonly converter: PcmConverter;

  constructor(format: PcmFormat) {
    super();
    this.converter = new PcmConverter(format);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    run(cb, () => this.push(this.converter.push(chunk)));
  }

  override _flush(cb: TransformCallback): void {
    run(cb, () => this.push(this.converter.flush()));
  }
}

/**
 * `wav`: a RIFF/WAVE header (parsed and checked: parseWavHeader), then its samples. A data
 * chunk of known length ends the audio there (chunks after it are skipped); a streamed one
 * (length 0 or 0xFFFFFFFF) runs to the end of the stream.
 */
export class WavDecoder extends Transform {
  private head: Buffer = Buffer.alloc(0);
  private header: WavHeader | undefined;
  private converter: PcmConverter | undefined;
  private remaining = Number.POSITIVE_INFINITY;

  /** The stream's format, once its header was read. */
  get format(): PcmFormat | undefined {
    return this.header?.format;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    run(cb, () => {
      let samples = chunk;
      if (!this.converter) {
        this.head = Buffer.concat([this.head, chunk]);
        const header = parseWavHeader(this.head);
        if (!header) return;
        this.header = header;
        this.converter = new PcmConverter(header.format);
        this.remaining = header.dataBytes ?? Number.POSITIVE_INFINITY;
        samples = this.head.subarray(header.headerBytes);
        this.head = Buffer.alloc(0);
      }
      const take = samples.subarray(0, Math.min(samples.length, this.remaining));
      this.remaining -= take.length;
      if (take.length > 0) this.push(this.converter.push(take));
    });
  }

  override _flush(cb: TransformCallback): void {
    run(cb, () => {
      if (!this.converter) {
        throw new AudioInvalid('the audio ended before its WAV header was complete');
      }
      this.push(this.converter.flush());
    });
  }
}
