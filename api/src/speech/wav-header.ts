import { AudioInvalid } from './audio-errors.js';
import {
  MAX_CHANNELS,
  MAX_SAMPLE_RATE,
  MIN_SAMPLE_RATE,
  type PcmFormat,
  type SampleFormat,
} from './pcm.js';

/** A WAV stream's format and where its samples start. */
export interface WavHeader {
  format: PcmFormat;
  /** Bytes before the first sample. */
  headerBytes: number;
  /** The data chunk's length; null when the writer did not know it (a stream: 0 or 0xFFFFFFFF). */
  dataBytes: number | null;
}

/** The most header bytes (RIFF, fmt and any other chunk before data) read before giving up. */
export const MAX_WAV_HEADER_BYTES = 64 * 1024;

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;

/**
 * Reads a RIFF/WAVE header from the start of a stream: undefined while more bytes are needed;
 * {@link AudioInvalid} naming the rule when it is not a WAV header or not one we decode
 * (integer PCM of 8, 16, 24 or 32 bits, or 32-bit float, WAVE_FORMAT_EXTENSIBLE included; 1 to
 * 8 channels; 8 to 192 kHz; a block size that matches).
 */
export function parseWavHeader(bytes: Buffer): WavHeader | undefined {
  if (bytes.length < 12) {
    if (!'RIFF'.startsWith(bytes.subarray(0, 4).toString('latin1'))) throw notWav();
    return undefined;
  }
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') {
    throw notWav();
  }
  let at = 12;
  let format: PcmFormat | undefined;
  for (;;) {
    if (at + 8 > bytes.length) return more(bytes);
    const id = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'data') {
      if (!format) throw new AudioInvalid('the WAV data chunk comes before its fmt chunk');
      const dataBytes = size === 0 || size === 0xffffffff ? null : size;
      return { format, headerBytes: at + 8, dataBytes };
    }
    const end = at + 8 + size + (size % 2); // chunks are padded to an even length
    if (end > MAX_WAV_HEADER_BYTES) throw tooLong();
    if (end > bytes.length) return undefined;
    if (id === 'fmt ') format = readFmt(bytes.subarray(at + 8, at + 8 + size));
    at = end;
  }
}

function more(bytes: Buffer): undefined {
  if (bytes.length >= MAX_WAV_HEADER_BYTES) throw tooLong();
  return undefined;
}

function readFmt(fmt: Buffer): PcmFormat {
  if (fmt.length < 16) throw new AudioInvalid('the WAV fmt chunk is shorter than 16 bytes');
  let tag = fmt.readUInt16LE(0);
  const channels = fmt.readUInt16LE(2);
  const sampleRate = fmt.readUInt32LE(4);
  const blockAlign = fmt.readUInt16LE(12);
  const bits = fmt.readUInt16LE(14);
  if (tag === FORMAT_EXTENSIBLE) {
    if (fmt.length < 40) throw new AudioInvalid('the WAV fmt chunk is too short for its format');
    tag = fmt.readUInt16LE(24); // the sub-format GUID starts with the format tag
  }
  let sampleFormat: SampleFormat;
  if (tag === FORMAT_PCM && [8, 16, 24, 32].includes(bits)) {
    sampleFormat = bits === 8 ? 'u8' : bits === 16 ? 's16' : bits === 24 ? 's24' : 's32';
  } else if (tag === FORMAT_FLOAT && bits === 32) {
    sampleFormat = 'f32';
  } else {
    throw new AudioInvalid(
      `WAV format ${tag} with ${bits}-bit samples is not supported: send integer PCM (8, 16, 24 or 32 bits) or 32-bit float`,
    );
  }
  if (channels < 1 || channels > MAX_CHANNELS) {
    throw new AudioInvalid(
      `the WAV audio has ${channels} channels; 1 to ${MAX_CHANNELS} are supported`,
    );
  }
  if (sampleRate < MIN_SAMPLE_RATE || sampleRate > MAX_SAMPLE_RATE) {
    throw new AudioInvalid(
      `the WAV sample rate is ${sampleRate} Hz; ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE} Hz are supported`,
    );
  }
  if (blockAlign !== (channels * bits) / 8) {
    throw new AudioInvalid(
      `the WAV block size ${blockAlign} does not match ${channels} × ${bits} bits`,
    );
  }
  return { sampleFormat, sampleRate, channels };
}

const notWav = () => new AudioInvalid('the audio is not a WAV stream (no RIFF/WAVE header)');
const tooLong = () =>
  new AudioInvalid(`no WAV data chunk within the first ${MAX_WAV_HEADER_BYTES} bytes`);

/** A WAV file of 16-bit mono PCM at `sampleRate` (what a transcription backend is sent). */
export function wavFile(pcm: Buffer, sampleRate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(FORMAT_PCM, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
