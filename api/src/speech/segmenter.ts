import { ENGINE_BYTES_PER_MS } from './pcm-decoder.js';

/** An utterance: engine input (16 kHz mono s16le) between two pauses. */
export interface Utterance {
  pcm: Buffer;
  /** Milliseconds of the session's audio. */
  startMs: number;
  endMs: number;
}

export interface SegmenterOptions {
  /** The silence that ends an utterance. */
  pauseMs: number;
  /** The longest utterance; a longer one is cut there (Whisper reads 30 s at most). */
  maxUtteranceMs?: number;
  /** Audio kept before the speech that started an utterance (its first sound is quiet). */
  preRollMs?: number;
  /** Speech that must last this long to start an utterance (a click does not). */
  minSpeechMs?: number;
  /** How far above the noise floor a frame's energy must be to be speech. */
  thresholdDb?: number;
}

const FRAME_MS = 20;
const FRAME_BYTES = FRAME_MS * ENGINE_BYTES_PER_MS;
/** Below this a frame is silence, whatever the floor (-55 dBFS: a quiet room's hiss). */
const ABSOLUTE_FLOOR_DB = -55;

/**
 * Cuts a stream of engine input into utterances at pauses, by energy (docs/adr/0036): a 20 ms
 * frame is speech when its level is `thresholdDb` above the noise floor (which follows the
 * level of non-speech frames) and above -55 dBFS. Used for engines that transcribe whole
 * utterances (an OpenAI-compatible `/audio/transcriptions` backend); PocketSphinx has its own.
 */
export class Segmenter {
  private readonly pauseMs: number;
  private readonly maxMs: number;
  private readonly preRollFrames: number;
  private readonly minSpeechFrames: number;
  private readonly thresholdDb: number;
  private rest: Buffer = Buffer.alloc(0);
  /** Frames read so far (the next frame's index). */
  private frame = 0;
  private floorDb = -70;
  /** Recent frames while no utterance runs (pre-roll and the speech that may start one). */
  private recent: Buffer[] = [];
  private speechRun = 0;
  /** The utterance being heard. */
  private current: { frames: Buffer[]; startFrame: number; silentFrames: number } | undefined;

  constructor(opts: SegmenterOptions) {
    this.pauseMs = opts.pauseMs;
    this.maxMs = opts.maxUtteranceMs ?? 30_000;
    this.preRollFrames = Math.round((opts.preRollMs ?? 200) / FRAME_MS);
    this.minSpeechFrames = Math.max(1, Math.round((opts.minSpeechMs ?? 60) / FRAME_MS));
    this.thresholdDb = opts.thresholdDb ?? 12;
  }

  /** Reads more audio; answers the utterances it completed. */
  push(pcm: Buffer): Utterance[] {
    const bytes = this.rest.length > 0 ? Buffer.concat([this.rest, pcm]) : pcm;
    const whole = bytes.length - (bytes.length % FRAME_BYTES);
    this.rest = Buffer.from(bytes.subarray(whole));
    const out: Utterance[] = [];
    for (let at = 0; at < whole; at += FRAME_BYTES) {
      const done = this.frameIn(Buffer.from(bytes.subarray(at, at + FRAME_BYTES)));
      if (done) out.push(done);
    }
    return out;
  }

  /** The utterance heard so far, while one runs (for interim results). */
  partial(): Utterance | undefined {
    const c = this.current;
    return c && this.utterance(c.frames, c.startFrame, c.frames.length);
  }

  /** The end of the audio: the utterance that was running, if any. */
  flush(): Utterance | undefined {
    const c = this.current;
    this.current = undefined;
    if (!c) return undefined;
    return this.utterance(c.frames, c.startFrame, c.frames.length - c.silentFrames);
  }

  private frameIn(f: Buffer): Utterance | undefined {
    const index = this.frame;
    this.frame += 1;
    const db = levelDb(f);
    const speech = db > Math.max(this.floorDb + this.thresholdDb, ABSOLUTE_FLOOR_DB);
    // The floor follows the quiet frames closely and creeps up under long loud ones, so a
    // steady noise stops counting as speech.
    this.floorDb += (Math.max(db, -90) - this.floorDb) * (speech ? 0.002 : 0.05);
    const c = this.current;
    if (c) {
      c.frames.push(f);
      c.silentFrames = speech ? 0 : c.silentFrames + 1;
      if (c.silentFrames * FRAME_MS >= this.pauseMs) {
        this.current = undefined;
        return this.utterance(c.frames, c.startFrame, c.frames.length - c.silentFrames);
      }
      if (c.frames.length * FRAME_MS >= this.maxMs) {
        this.current = { frames: [], startFrame: index + 1, silentFrames: 0 };
        return this.utterance(c.frames, c.startFrame, c.frames.length);
      }
      return undefined;
    }
    this.recent.push(f);
    if (this.recent.length > this.preRollFrames + this.minSpeechFrames) this.recent.shift();
    this.speechRun = speech ? this.speechRun + 1 : 0;
    if (this.speechRun >= this.minSpeechFrames) {
      this.current = {
        frames: this.recent,
        startFrame: index + 1 - this.recent.length,
        silentFrames: 0,
      };
      this.recent = [];
      this.speechRun = 0;
    }
    return undefined;
  }

  private utterance(frames: Buffer[], startFrame: number, count: number): Utterance | undefined {
    if (count <= 0) return undefined;
    return {
      pcm: Buffer.concat(frames.slice(0, count)),
      startMs: startFrame * FRAME_MS,
      endMs: (startFrame + count) * FRAME_MS,
    };
  }
}

/** A frame's level in dBFS (mean square of its samples). */
function levelDb(f: Buffer): number {
  let sum = 0;
  const n = f.length / 2;
  for (let i = 0; i < n; i += 1) {
    const v = f.readInt16LE(i * 2) / 32768;
    sum += v * v;
  }
  return 10 * Math.log10(sum / n + 1e-12);
}
