import type { Duplex } from 'node:stream';
import { FfmpegDecoder } from './ffmpeg-decoder.js';
import { PcmDecoder, WavDecoder } from './pcm-decoder.js';
import type { SttEncoding } from './stt-protocol.js';

export interface DecoderParams {
  encoding: SttEncoding;
  /** pcm_int16 / pcm_float32: the samples' rate and interleaved channels. */
  sampleRate?: number;
  channels: number;
  /** ffmpeg's path or name (mp3, opus). */
  ffmpeg: string;
}

/**
 * A session's decoder (docs/adr/0036): the client's bytes in, engine input out (16 kHz mono
 * s16le). PCM and WAV are converted in process; mp3 and opus by an ffmpeg child of the session.
 */
export function createDecoder(p: DecoderParams): Duplex {
  switch (p.encoding) {
    case 'pcm_int16':
    case 'pcm_float32':
      return new PcmDecoder({
        sampleFormat: p.encoding === 'pcm_int16' ? 's16' : 'f32',
        sampleRate: p.sampleRate as number,
        channels: p.channels,
      });
    case 'wav':
      return new WavDecoder();
    case 'mp3':
    case 'opus':
      return new FfmpegDecoder(p.encoding, p.ffmpeg);
  }
}
