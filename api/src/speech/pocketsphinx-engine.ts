import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '@aiplane/lib';
import { EngineFailed, EngineUnavailable } from './audio-errors.js';
import type {
  Recognition,
  RecognitionOptions,
  SpeechEngine,
  Transcript,
  WordTiming,
} from './engine.js';
import { LOCAL_STT_MODEL } from './speech-config.js';

export interface PocketSphinxOptions {
  /** The helper binary (api/src/speech/native/pocketsphinx-stream.c). */
  helper: string;
  /** `en-us/` (acoustic model), `en-us.lm.bin`, `cmudict-en-us.dict`. */
  modelDir: string;
  /** Helpers kept started and loaded for the next sessions (started with the first session). */
  warm: number;
  /** How often the helper looks at an utterance's words so far. */
  interimIntervalMs: number;
  /** The pause that ends an utterance. */
  pauseMs: number;
  logger: Logger;
}

/** The helper's stdout lines. */
type HelperLine =
  | { type: 'ready' }
  | {
      type: 'partial' | 'final';
      text: string;
      start_ms: number;
      end_ms: number;
      words?: HelperWord[];
    }
  | { type: 'end' }
  | { type: 'error'; message: string };
interface HelperWord {
  word: string;
  start_ms: number;
  end_ms: number;
}

/** The most of a helper's stderr kept for the log. */
const MAX_STDERR = 4096;

/**
 * One helper process: loads the model, then serves exactly one session (no state of one user's
 * audio reaches another's), and exits at the end of its input.
 */
class Helper {
  readonly ready: Promise<void>;
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private stderr = '';
  private listener: ((line: HelperLine) => void) | undefined;
  private sawEnd = false;

  constructor(opts: PocketSphinxOptions) {
    this.child = spawn(
      opts.helper,
      [
        '--hmm',
        join(opts.modelDir, 'en-us'),
        '--lm',
        join(opts.modelDir, 'en-us.lm.bin'),
        '--dict',
        join(opts.modelDir, 'cmudict-en-us.dict'),
        '--partial-ms',
        String(opts.interimIntervalMs),
        '--postspeech',
        String(Math.round(opts.pauseMs / 10)),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const child = this.child;
    child.stdin.on('error', () => undefined); // EPIPE after a crash: the exit says why
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (this.stderr.length < MAX_STDERR)
        this.stderr += text.slice(0, MAX_STDERR - this.stderr.length);
    });
    let spawnError: Error | undefined;
    this.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        spawnError = err;
        resolve(null);
      });
      child.once('close', (code) => resolve(code));
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (text) => {
        let line: HelperLine;
        try {
          line = JSON.parse(text) as HelperLine;
        } catch {
          return;
        }
        if (line.type === 'ready') resolve();
        else if (line.type === 'end') this.sawEnd = true;
        else if (line.type === 'error') reject(new EngineUnavailable(line.message));
        this.listener?.(line);
      });
      void this.exited.then((code) => {
        reject(
          new EngineUnavailable(
            spawnError
              ? `the PocketSphinx helper could not start: ${spawnError.message}`
              : `the PocketSphinx helper exited (${code}) before its model was loaded${this.stderrNote()}`,
          ),
        );
      });
    });
    this.ready.catch(() => undefined);
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && !this.child.killed;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }

  /** Serves one session with this (ready) helper. */
  recognition(opts: RecognitionOptions): Recognition {
    this.listener = (line) => {
      if (line.type !== 'partial' && line.type !== 'final') return;
      if (line.type === 'partial' && !opts.interim) return;
      const t: Transcript = {
        text: line.text,
        isFinal: line.type === 'final',
        startMs: line.start_ms,
        endMs: line.end_ms,
      };
      if (line.words) t.words = line.words.map(wordTiming);
      opts.onTranscript(t);
    };
    const done = this.exited.then((code) => {
      if (code === 0 && this.sawEnd) return;
      throw new EngineFailed(`the PocketSphinx helper stopped (exit ${code})${this.stderrNote()}`);
    });
    let aborted = false;
    return {
      input: this.child.stdin,
      done: done.catch((err: unknown) => {
        if (aborted) return;
        throw err;
      }),
      abort: () => {
        aborted = true;
        this.listener = undefined;
        this.kill();
      },
    };
  }

  private stderrNote(): string {
    const s = this.stderr.trim();
    return s ? `: ${s.slice(-500)}` : '';
  }
}

const wordTiming = (w: HelperWord): WordTiming => ({
  word: w.word,
  startMs: w.start_ms,
  endMs: w.end_ms,
});

/**
 * The local engine (docs/adr/0036): PocketSphinx 5prealpha with its US English model, one
 * helper process per session (a small C program over libpocketsphinx, reading 16 kHz PCM on
 * stdin, writing results as JSON lines), with `warm` of them started ahead so a session does not
 * wait for the model to load. English only.
 */
export class PocketSphinxEngine implements SpeechEngine {
  readonly name = LOCAL_STT_MODEL;
  readonly languages = ['en'] as const;
  private readonly spare: Helper[] = [];
  private readonly live = new Set<Helper>();
  private closed = false;

  constructor(private readonly opts: PocketSphinxOptions) {}

  async start(opts: RecognitionOptions): Promise<Recognition> {
    if (this.closed) throw new EngineUnavailable('the API is stopping');
    let helper = this.spare.shift();
    while (helper && !helper.alive) helper = this.spare.shift();
    helper ??= this.spawn();
    this.refill();
    await helper.ready;
    return helper.recognition(opts);
  }

  /** Pids of the helpers running now (tests check none is left behind). */
  pids(): number[] {
    return [...this.live].map((h) => h.pid).filter((p): p is number => p !== undefined);
  }

  /** Kills every helper (spare or serving). */
  close(): void {
    this.closed = true;
    for (const h of this.live) h.kill();
    this.spare.length = 0;
  }

  private refill(): void {
    while (!this.closed && this.spare.length < this.opts.warm) this.spare.push(this.spawn());
  }

  private spawn(): Helper {
    const helper = new Helper(this.opts);
    this.live.add(helper);
    void helper.exited.then(() => {
      this.live.delete(helper);
      const at = this.spare.indexOf(helper);
      if (at >= 0) this.spare.splice(at, 1);
    });
    helper.ready.catch((err: unknown) => {
      this.opts.logger.warn({ err }, 'the PocketSphinx helper did not start');
    });
    return helper;
  }
}
