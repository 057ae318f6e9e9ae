import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import { AudioInvalid, EngineUnavailable } from './audio-errors.js';
import { ENGINE_SAMPLE_RATE } from './pcm-decoder.js';

/** The compressed encodings ffmpeg decodes. */
export type CompressedEncoding = 'mp3' | 'opus';

/** The most of ffmpeg's error output kept for the log. */
const MAX_STDERR = 4096;

/** A container recognised from its first bytes: ffmpeg's demuxer and decoder for it. */
interface Container {
  demuxer: string;
  decoder: string;
  label: string;
}

/**
 * The container of a stream's first bytes, or an AudioInvalid naming what was expected;
 * undefined while fewer than 4 bytes came. `opus` is Ogg (`OggS`) or WebM/Matroska (EBML
 * magic), as browsers record it; `mp3` starts with an ID3 tag or an MPEG audio frame sync.
 */
export function sniffContainer(encoding: CompressedEncoding, head: Buffer): Container | undefined {
  if (head.length < 4) return undefined;
  if (encoding === 'opus') {
    if (head.toString('latin1', 0, 4) === 'OggS') {
      return { demuxer: 'ogg', decoder: 'opus', label: 'Ogg/Opus' };
    }
    if (head.readUInt32BE(0) === 0x1a45dfa3) {
      return { demuxer: 'matroska', decoder: 'opus', label: 'WebM/Opus' };
    }
    throw new AudioInvalid('opus audio must come in an Ogg or a WebM container');
  }
  const id3 = head.toString('latin1', 0, 3) === 'ID3';
  const sync = head[0] === 0xff && ((head[1] as number) & 0xe0) === 0xe0;
  if (id3 || sync) return { demuxer: 'mp3', decoder: 'mp3float', label: 'MP3' };
  throw new AudioInvalid('the audio is not MP3 (no ID3 tag or MPEG audio frame at its start)');
}

/**
 * `mp3` and `opus` (Ogg or WebM) decoded by an ffmpeg child process of the session, streamed:
 * bytes written in, engine input (16 kHz mono s16le) read out. ffmpeg starts at the first 4
 * bytes (which choose its demuxer; only that demuxer and one decoder are allowed, forced by
 * `-f` and `-c:a`, never probed). Backpressure holds both ways: a full stdin holds this
 * stream's writes, a reader that stops pauses ffmpeg's stdout.
 *
 * Corrupt audio is an AudioInvalid error: ffmpeg exiting with a failure, or reporting an error
 * before the end of the input was signalled (errors after it are a cut last frame, which a
 * client that stops recording may send). Destroying the stream kills ffmpeg.
 */
export class FfmpegDecoder extends Duplex {
  private child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  private head: Buffer = Buffer.alloc(0);
  private stderr = '';
  private inputEnded = false;
  private exited: Promise<number | null> | undefined;
  private failure: Error | undefined;

  constructor(
    private readonly encoding: CompressedEncoding,
    private readonly ffmpeg: string,
  ) {
    super({ readableHighWaterMark: 32 * 1024, writableHighWaterMark: 32 * 1024 });
  }

  /** The ffmpeg child's pid while it runs (tests check none is left behind). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.child) {
      this.toChild(chunk, cb);
      return;
    }
    this.head = Buffer.concat([this.head, chunk]);
    let container: Container | undefined;
    try {
      container = sniffContainer(this.encoding, this.head);
    } catch (err) {
      cb(err as Error);
      return;
    }
    if (!container) {
      cb();
      return;
    }
    try {
      this.start(container);
    } catch (err) {
      cb(err as Error);
      return;
    }
    const head = this.head;
    this.head = Buffer.alloc(0);
    this.toChild(head, cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.inputEnded = true;
    if (!this.child) {
      // Fewer than 4 bytes, or none: nothing to decode.
      if (this.head.length > 0) {
        cb(new AudioInvalid(`the ${this.encoding} audio ended after ${this.head.length} bytes`));
        return;
      }
      this.push(null);
      cb();
      return;
    }
    this.child.stdin.end();
    cb();
  }

  override _read(): void {
    this.child?.stdout.resume();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    cb(err);
  }

  private toChild(chunk: Buffer, cb: (err?: Error | null) => void): void {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) {
      cb(this.failure ?? new AudioInvalid(`ffmpeg stopped reading the ${this.encoding} audio`));
      return;
    }
    if (stdin.write(chunk)) cb();
    else stdin.once('drain', () => cb());
  }

  private start(container: Container): void {
    const args = [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      // Stream: no probing ahead of the first packets (which would wait for seconds of
      // audio). Not `-fflags nobuffer`: it drops the packets read while probing.
      '-probesize',
      '32',
      '-analyzeduration',
      '0',
      '-xerror',
      '-f',
      container.demuxer,
      '-c:a',
      container.decoder,
      '-i',
      'pipe:0',
      '-vn',
      '-ac',
      '1',
      '-ar',
      String(ENGINE_SAMPLE_RATE),
      '-f',
      's16le',
      '-flush_packets',
      '1',
      'pipe:1',
    ];
    const child = spawn(this.ffmpeg, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('close', (code) => resolve(code));
      child.once('error', (err: NodeJS.ErrnoException) => {
        this.fail(
          err.code === 'ENOENT'
            ? new EngineUnavailable(`ffmpeg is not installed (${this.ffmpeg})`)
            : new EngineUnavailable(`ffmpeg could not start: ${err.message}`),
        );
        resolve(null);
      });
    });
    // Writes after ffmpeg exited fail with EPIPE: the exit says why.
    child.stdin.on('error', () => undefined);
    child.stdout.on('data', (data: Buffer) => {
      if (!this.push(data)) child.stdout.pause();
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (this.stderr.length < MAX_STDERR)
        this.stderr += text.slice(0, MAX_STDERR - this.stderr.length);
      if (!this.inputEnded) this.fail(this.corrupt(container));
    });
    child.stdout.once('end', () => {
      void this.exited?.then((code) => {
        if (this.failure || this.destroyed) return;
        if (code !== 0) this.fail(this.corrupt(container));
        else this.push(null);
      });
    });
  }

  /** What ffmpeg said, for the log (never for the client: it may quote the input). */
  get diagnostics(): string {
    return this.stderr.trim();
  }

  private corrupt(container: Container): AudioInvalid {
    return new AudioInvalid(`the ${container.label} audio is corrupt or cannot be decoded`);
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.destroy(err);
  }
}
