import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { Logger } from '@aiplane/lib';
import { wsCloseOf } from '@aiplane/lib/errors';
import { socketErrorOf } from './audio-errors.js';
import { createDecoder } from './decoders.js';
import type { Recognition, SpeechEngine } from './engine.js';
import { ENGINE_BYTES_PER_MS } from './pcm-decoder.js';
import type { SpeechLimits } from './speech-config.js';
import { AudioPace } from './session-limits.js';
import type { SpeechMetrics } from './speech-metrics.js';
import {
  errorFrame,
  parseControl,
  parseHandshake,
  readyFrame,
  type SessionQuery,
  type SocketError,
  type SttHandshake,
  transcriptFrame,
} from './stt-protocol.js';

export interface SttSessionDeps {
  engineFor: (organizationId: string, model: string | undefined) => Promise<SpeechEngine>;
  limits: SpeechLimits;
  ffmpeg: string;
  logger: Logger;
  metrics: SpeechMetrics;
  now?: () => number;
}

export interface SttSessionContext {
  ws: WebSocket;
  userId: string;
  organizationId: string;
  query: SessionQuery;
  /** Gives the session's slots back (called once the socket closed). */
  release: () => void;
}

type State = 'handshake' | 'starting' | 'streaming' | 'ending' | 'closed';

/**
 * One `WS /v1/stt` session after the query was accepted (docs/adr/0036, docs/speech.md):
 *
 * handshake (a JSON text message) → the engine starts → `session_ready` → binary audio through
 * the decoder into the engine, transcripts out as they come → `{"type":"end"}` (or a limit)
 * flushes the last utterance → close 1000 (or the limit's error frame and close code).
 * Audio before `session_ready`, a bad message, corrupt audio, an oversized frame or audio
 * faster than the allowed pace end the session at once with an error frame; the client leaving
 * kills the decoder and the engine. The socket stops being read while the decoder or the engine
 * is behind (backpressure), so no buffer grows without bound.
 */
export class SttSession {
  readonly id = randomUUID();
  private state: State = 'handshake';
  private decoder: Duplex | undefined;
  private recognition: Recognition | undefined;
  private pace: AudioPace;
  private endRequested = false;
  /** The error frame to send once the flush is done (a limit ended the session). */
  private endReason: SocketError | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private sessionTimer: NodeJS.Timeout | undefined;
  private paused = false;
  private transcripts = 0;
  private model = 'none';
  private outcome: string | undefined;
  private readonly log: Logger;

  constructor(
    private readonly deps: SttSessionDeps,
    private readonly ctx: SttSessionContext,
  ) {
    this.pace = new AudioPace(deps.limits.realtimeFactor, deps.limits.burstMs, deps.now);
    this.log = deps.logger.child({
      sttSession: this.id,
      userId: ctx.userId,
      organizationId: ctx.organizationId,
    });
    ctx.ws.on('message', (data: RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    ctx.ws.on('close', () => this.onClose());
    ctx.ws.on('error', (err) => this.log.debug({ err }, 'stt socket error'));
    deps.metrics.open.inc();
    this.touch();
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.state === 'closed' || this.state === 'ending') return;
    this.touch();
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    if (isBinary) {
      this.audio(bytes);
      return;
    }
    const text = bytes.toString('utf8');
    if (this.state === 'handshake') {
      const h = parseHandshake(text, this.ctx.query.encoding);
      if ('code' in h) this.fail(h);
      else void this.start(h);
      return;
    }
    const control = parseControl(text);
    if (control !== 'end') {
      this.fail(control);
      return;
    }
    if (this.state === 'starting') this.endRequested = true;
    else this.end();
  }

  /** The handshake was accepted: the engine, then the decoder, then `session_ready`. */
  private async start(h: SttHandshake): Promise<void> {
    this.state = 'starting';
    const { lang, encoding, sampleRate } = this.ctx.query;
    let engine: SpeechEngine;
    let recognition: Recognition;
    try {
      engine = await this.deps.engineFor(this.ctx.organizationId, h.model);
      if (!engine.languages.includes(lang)) {
        this.fail({
          code: 'speech_language_unavailable',
          message: `the engine ${engine.name} cannot recognise "${lang}"`,
          extra: { model: engine.name, engine_languages: engine.languages },
        });
        return;
      }
      recognition = await engine.start({
        lang,
        interim: h.interim_results === true,
        onTranscript: (t) => {
          this.transcripts += 1;
          this.send(transcriptFrame(t));
        },
      });
    } catch (err) {
      this.fail(this.socketErrorOf(err));
      return;
    }
    if (this.state !== 'starting') {
      recognition.abort(); // the client left, or broke a rule, meanwhile
      return;
    }
    this.recognition = recognition;
    this.model = engine.name;
    const decoder = createDecoder({
      encoding,
      sampleRate,
      channels: h.channels ?? 1,
      ffmpeg: this.deps.ffmpeg,
    });
    this.decoder = decoder;
    this.wire(decoder, recognition);
    this.state = 'streaming';
    const limits = this.deps.limits;
    this.send(
      readyFrame({
        sessionId: this.id,
        model: engine.name,
        query: this.ctx.query,
        handshake: h,
        limits,
      }),
    );
    this.log.info({ model: engine.name, lang, encoding }, 'stt session ready');
    this.sessionTimer = setTimeout(
      () =>
        this.end({
          code: 'speech_session_too_long',
          message: `a session lasts ${limits.maxSessionSeconds} s at most`,
        }),
      limits.maxSessionSeconds * 1000,
    );
    if (this.endRequested) this.end();
  }

  /** Decoder output into the engine, counted against the pace; the engine's end closes. */
  private wire(decoder: Duplex, recognition: Recognition): void {
    const input = recognition.input;
    const audioSeconds = this.deps.metrics.audioSeconds.labels(this.model, this.ctx.query.encoding);
    decoder.on('data', (pcm: Buffer) => {
      if (this.state === 'closed') return;
      audioSeconds.inc(pcm.length / ENGINE_BYTES_PER_MS / 1000);
      if (!this.pace.add(pcm.length / ENGINE_BYTES_PER_MS)) {
        const { realtimeFactor, burstMs } = this.deps.limits;
        this.fail({
          code: 'speech_rate_exceeded',
          message: `audio may arrive at ${realtimeFactor} times real time at most (and ${burstMs} ms ahead)`,
        });
        return;
      }
      if (!input.write(pcm)) {
        decoder.pause();
        input.once('drain', () => decoder.resume());
      }
    });
    decoder.once('end', () => input.end());
    decoder.once('error', (err) => this.fail(this.socketErrorOf(err)));
    input.once('error', (err) => this.fail(this.socketErrorOf(err)));
    recognition.done.then(
      () => this.finished(),
      (err: unknown) => this.fail(this.socketErrorOf(err)),
    );
  }

  private audio(chunk: Buffer): void {
    if (this.state !== 'streaming') {
      this.fail({
        code: 'speech_audio_before_ready',
        message: 'send the handshake, then audio once session_ready came',
      });
      return;
    }
    const max = this.deps.limits.maxFrameBytes;
    if (chunk.length > max) {
      this.fail({
        code: 'speech_frame_too_large',
        message: `an audio frame may have ${max} bytes at most; this one has ${chunk.length}`,
      });
      return;
    }
    this.pace.started();
    const decoder = this.decoder as Duplex;
    const accepted = decoder.write(chunk);
    // (The write may have ended the session: a rule broken by what it decoded.)
    if (!accepted && !this.paused && this.state === 'streaming') {
      // Backpressure: read no more of the socket until the decoder (and the engine) caught up.
      this.setPaused(true);
      this.ctx.ws.pause();
      clearTimeout(this.idleTimer);
      decoder.once('drain', () => {
        this.setPaused(false);
        if (this.state === 'closed') return;
        this.ctx.ws.resume();
        this.touch();
      });
    }
  }

  /** No more audio: the decoder and the engine flush, then the socket closes. */
  private end(reason?: SocketError): void {
    if (this.state !== 'streaming') return;
    this.state = 'ending';
    this.endReason = reason;
    this.clearTimers();
    this.resumeReading(); // later frames are read and dropped
    this.decoder?.end();
  }

  /** The engine said everything after the end of the audio. */
  private finished(): void {
    if (this.state === 'closed') return;
    const reason = this.endReason;
    this.state = 'closed';
    this.outcome = reason?.code ?? 'ok';
    this.clearTimers();
    this.log.info(
      { audioMs: Math.round(this.pace.total), transcripts: this.transcripts, reason: reason?.code },
      'stt session ended',
    );
    if (reason) {
      this.send(errorFrame(reason));
      this.ctx.ws.close(wsCloseOf(reason.code), reason.code);
    } else {
      this.ctx.ws.close(1000, 'end of session');
    }
  }

  /** Ends the session at once: stops the decoder and the engine, error frame, close. */
  private fail(e: SocketError): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.outcome = e.code;
    this.stopWork();
    this.log.info(
      { code: e.code, audioMs: Math.round(this.pace.total), transcripts: this.transcripts },
      'stt session refused',
    );
    this.send(errorFrame(e));
    this.ctx.ws.close(wsCloseOf(e.code), e.code);
  }

  private onClose(): void {
    if (this.state !== 'closed') {
      this.state = 'closed';
      this.outcome = 'client_left';
      this.stopWork();
      this.log.info({ audioMs: Math.round(this.pace.total) }, 'stt client left');
    }
    this.clearTimers();
    this.setPaused(false);
    const m = this.deps.metrics;
    m.open.dec();
    m.sessions.inc({ model: this.model, outcome: this.outcome ?? 'client_left' });
    this.ctx.release();
  }

  private stopWork(): void {
    this.clearTimers();
    this.resumeReading();
    this.recognition?.abort();
    this.decoder?.destroy();
  }

  private send(frame: string): void {
    if (this.ctx.ws.readyState === this.ctx.ws.OPEN) this.ctx.ws.send(frame);
  }

  /** The client did something: the idle clock starts again. */
  private touch(): void {
    clearTimeout(this.idleTimer);
    if (this.state === 'closed' || this.state === 'ending') return;
    const seconds = this.deps.limits.idleTimeoutSeconds;
    this.idleTimer = setTimeout(() => {
      const e: SocketError = {
        code: 'speech_idle_timeout',
        message: `nothing came from the client for ${seconds} s`,
      };
      if (this.state === 'streaming') this.end(e);
      else this.fail(e);
    }, seconds * 1000);
  }

  /** Reads the socket again (its close frame too) if backpressure had stopped it. */
  private resumeReading(): void {
    if (!this.paused) return;
    this.setPaused(false);
    this.ctx.ws.resume();
  }

  private setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    if (paused) this.deps.metrics.paused.inc();
    else this.deps.metrics.paused.dec();
  }

  private clearTimers(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.sessionTimer);
  }

  /** A decoder's or engine's failure as the socket's error (logged as it deserves). */
  private socketErrorOf(err: unknown): SocketError {
    const diagnostics = (this.decoder as { diagnostics?: string } | undefined)?.diagnostics;
    return socketErrorOf(err, this.log, diagnostics);
  }
}
