import type { Writable } from 'node:stream';

/** A word of a final result with its place in the audio (the local engine gives them). */
export interface WordTiming {
  word: string;
  startMs: number;
  endMs: number;
}

/** A result: the words of an utterance so far (interim) or once it ended at a pause (final). */
export interface Transcript {
  text: string;
  isFinal: boolean;
  /** Milliseconds of the session's audio (16 kHz samples read / 16). */
  startMs: number;
  endMs: number;
  words?: WordTiming[];
}

export interface RecognitionOptions {
  /** ISO 639-1, one of the engine's `languages`. */
  lang: string;
  /** Whether the session asked for interim results. */
  interim: boolean;
  /** Called with each result, in order. */
  onTranscript: (t: Transcript) => void;
}

/** One session's recognition: audio in, results out through `onTranscript`. */
export interface Recognition {
  /**
   * 16 kHz mono signed 16-bit little-endian PCM. Its `write` returns false when the engine is
   * behind: wait for 'drain' (the session stops reading the socket meanwhile). `end()` flushes.
   */
  readonly input: Writable;
  /**
   * Settles once the engine said everything after `input` ended: resolves, or rejects with
   * EngineFailed (or a backend's failure) when the engine broke.
   */
  readonly done: Promise<void>;
  /** Stops at once (the client left, or the session failed); nothing more is reported. */
  abort(): void;
}

/** A speech recognition engine (docs/adr/0036). */
export interface SpeechEngine {
  /** The name a handshake's `model` gives (LOCAL_STT_MODEL, or a catalogue model's name). */
  readonly name: string;
  /** The languages it recognises (ISO 639-1). */
  readonly languages: readonly string[];
  /** Starts a session; rejects with EngineUnavailable when the engine cannot run. */
  start(opts: RecognitionOptions): Promise<Recognition>;
}
