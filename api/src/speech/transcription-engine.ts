import { Writable } from 'node:stream';
import type { PinnedFetch } from '@aiplane/lib/mcp';
import { BackendFailure, callBackend, EncodedBody } from '../inference/backend-client.js';
import { EngineFailed } from './audio-errors.js';
import type { Recognition, RecognitionOptions, SpeechEngine } from './engine.js';
import { ENGINE_BYTES_PER_MS, ENGINE_SAMPLE_RATE } from './pcm-decoder.js';
import { Segmenter, type Utterance } from './segmenter.js';
import { STT_LANGUAGES } from './stt-protocol.js';
import { wavFile } from './wav-header.js';

export interface TranscriptionBackend {
  /** The catalogue entry's base URL (`…/v1`); `/audio/transcriptions` is appended. */
  baseUrl: string;
  /** The model's name at the backend. */
  model: string;
  apiKey?: string | undefined;
  /** The SSRF-checked pool, or the in-cluster one. */
  http: Pick<PinnedFetch, 'request'>;
  /** The first retry's delay (three retries: spec, Limits). */
  retryBaseMs: number;
  /** One request's budget, retries included. */
  timeoutMs: number;
}

export interface TranscriptionEngineOptions {
  /** The catalogue model's name. */
  name: string;
  backend: TranscriptionBackend;
  pauseMs: number;
  interimIntervalMs: number;
}

/** Utterances waiting for the backend before the session stops reading the client. */
const MAX_QUEUED = 2;

/**
 * A catalogue model of mode `stt` (docs/adr/0036): an OpenAI-compatible speech backend
 * (faster-whisper servers such as speaches, vLLM's Whisper) that transcribes whole utterances
 * with `POST {base_url}/audio/transcriptions` (multipart: `file` as WAV, `model`, `language`,
 * `response_format=json`). The audio is cut at pauses (Segmenter); each utterance is sent once
 * it ended and answered as a final result, in order. Interim results, when asked, send the
 * utterance heard so far again every `interimIntervalMs` of new audio, while no other request
 * of the session runs. All six languages of the socket.
 */
export class TranscriptionEngine implements SpeechEngine {
  readonly languages = STT_LANGUAGES;
  readonly name: string;

  constructor(private readonly opts: TranscriptionEngineOptions) {
    this.name = opts.name;
  }

  start(session: RecognitionOptions): Promise<Recognition> {
    return Promise.resolve(new BackendRecognition(this.opts, session));
  }
}

class BackendRecognition implements Recognition {
  readonly input: Writable;
  readonly done: Promise<void>;
  private readonly segmenter: Segmenter;
  private readonly queue: Utterance[] = [];
  private readonly abortController = new AbortController();
  private working = false;
  private held: (() => void) | undefined;
  private ending: (() => void) | undefined;
  private interimAtMs = 0;
  private settle!: { resolve: () => void; reject: (err: Error) => void };
  private failed = false;

  constructor(
    private readonly opts: TranscriptionEngineOptions,
    private readonly session: RecognitionOptions,
  ) {
    this.segmenter = new Segmenter({ pauseMs: opts.pauseMs });
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    this.done.catch(() => undefined);
    this.input = new Writable({
      highWaterMark: 32 * 1024,
      write: (chunk: Buffer, _enc, cb) => {
        this.queue.push(...this.segmenter.push(chunk));
        this.pump();
        if (this.queue.length >= MAX_QUEUED) this.held = () => cb();
        else cb();
      },
      final: (cb) => {
        const last = this.segmenter.flush();
        if (last) this.queue.push(last);
        this.ending = () => cb();
        this.pump();
      },
    });
  }

  abort(): void {
    this.failed = true;
    this.abortController.abort();
    this.input.destroy();
    this.settle.resolve();
  }

  private pump(): void {
    if (this.working || this.failed) return;
    const next = this.queue.shift();
    if (this.held && this.queue.length < MAX_QUEUED) {
      const release = this.held;
      this.held = undefined;
      release();
    }
    if (next) {
      this.interimAtMs = 0;
      this.run(next, true);
      return;
    }
    if (this.ending) {
      this.ending();
      this.settle.resolve();
      return;
    }
    const partial = this.session.interim ? this.segmenter.partial() : undefined;
    if (
      partial &&
      partial.pcm.length / ENGINE_BYTES_PER_MS - this.interimAtMs >= this.opts.interimIntervalMs
    ) {
      this.interimAtMs = partial.pcm.length / ENGINE_BYTES_PER_MS;
      this.run(partial, false);
    }
  }

  private run(u: Utterance, isFinal: boolean): void {
    this.working = true;
    this.transcribe(u)
      .then((text) => {
        if (this.failed) return;
        if (text) {
          this.session.onTranscript({ text, isFinal, startMs: u.startMs, endMs: u.endMs });
        }
        this.working = false;
        this.pump();
      })
      .catch((err: unknown) => {
        if (this.failed) return;
        this.failed = true;
        const failure = err instanceof Error ? err : new EngineFailed(String(err));
        this.input.destroy(failure);
        this.settle.reject(failure);
      });
  }

  private async transcribe(u: Utterance): Promise<string> {
    const b = this.opts.backend;
    const form = new FormData();
    form.append(
      'file',
      new Blob([wavFile(u.pcm, ENGINE_SAMPLE_RATE)], { type: 'audio/wav' }),
      'audio.wav',
    );
    form.append('model', b.model);
    form.append('language', this.session.lang);
    form.append('response_format', 'json');
    // The platform's own multipart encoding (undici's), not a hand-written one.
    const encoded = new Response(form);
    const body = new EncodedBody(
      encoded.headers.get('content-type') ?? 'multipart/form-data',
      new Uint8Array(await encoded.arrayBuffer()),
    );
    const res = await callBackend({
      request: b.http.request,
      url: `${b.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`,
      apiKey: b.apiKey,
      body,
      signal: AbortSignal.any([this.abortController.signal, AbortSignal.timeout(b.timeoutMs)]),
      retryBaseMs: b.retryBaseMs,
    });
    let answer: unknown;
    try {
      answer = await res.body.json();
    } catch {
      throw new BackendFailure(200, 'the backend’s /audio/transcriptions answer is not JSON');
    }
    const text = (answer as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') {
      throw new BackendFailure(200, 'the backend’s /audio/transcriptions answer has no text');
    }
    return text.trim();
  }
}
