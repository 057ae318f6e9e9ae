import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type SpeechEngine, WavDecoder } from '@aiplane/api';
import { Injections, json, startLoopbackBackend } from './loopback-backend.js';

/** One transcription request the backend received (the audio's length, not its bytes). */
export interface SttTestRequest {
  path: string;
  authorization: string | undefined;
  /** The form's text fields: model, language, response_format, … */
  fields: Record<string, string>;
  /** The uploaded file's name and size. */
  file?: { name: string; type: string; bytes: number };
}

export interface SttTestBackendOptions {
  /** Recognises the uploaded audio (the local PocketSphinx engine, in the tests). */
  engine: SpeechEngine;
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
}

export interface SttTestBackend {
  /** `http://127.0.0.1:<port>/v1`: what a catalogue entry's base_url is. */
  baseUrl: string;
  requests: SttTestRequest[];
  /** The next `count` requests answer `status` with an error body. */
  failNext(count: number, status: number): void;
  /** The next answer is this body instead of the real one (a broken backend). */
  answerNext(body: unknown): void;
  close(): Promise<void>;
}

/**
 * TEST SUPPORT: an OpenAI-compatible speech backend on loopback (as faster-whisper servers and
 * vLLM serve it), so the platform's transcription client is proven against a real recogniser
 * (docs/adr/0036). `POST /v1/audio/transcriptions` takes a multipart form (`file`: WAV, `model`,
 * `language`, `response_format`) and answers `{"text": …}`: the engine's final results for the
 * whole file, joined. Whatever `language` says, the local engine hears English.
 */
export async function startSttTestBackend(opts: SttTestBackendOptions): Promise<SttTestBackend> {
  const requests: SttTestRequest[] = [];
  const injected = new Injections();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const seen: SttTestRequest = { path, authorization: req.headers.authorization, fields: {} };
    requests.push(seen);
    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      json(res, 401, { error: { message: 'invalid api key' } });
      return;
    }
    if (injected.failed(res)) return;
    if (req.method !== 'POST' || path !== '/v1/audio/transcriptions') {
      json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
      return;
    }
    // The web platform's own multipart parser (undici's), as a server framework would use one.
    let form: FormData;
    try {
      form = await new Request('http://backend/', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: Buffer.concat(chunks),
      }).formData();
    } catch {
      json(res, 400, { error: { message: 'the body is not a multipart form' } });
      return;
    }
    let file: File | undefined;
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') seen.fields[name] = value;
      else if (name === 'file') file = value;
    }
    if (!file) {
      json(res, 400, { error: { message: 'file is required' } });
      return;
    }
    seen.file = { name: file.name, type: file.type, bytes: file.size };
    if (injected.answered(res)) return;
    const text = await recognise(opts.engine, Buffer.from(await file.arrayBuffer()));
    json(res, 200, { text });
  }

  const server = await startLoopbackBackend(handle);
  return {
    ...server,
    requests,
    failNext: (count, status) => injected.failNext(count, status),
    answerNext: (body) => injected.answerNext(body),
  };
}

/** A WAV file through the engine: its final results, joined by spaces. */
async function recognise(engine: SpeechEngine, wav: Buffer): Promise<string> {
  const finals: string[] = [];
  const recognition = await engine.start({
    lang: 'en',
    interim: false,
    onTranscript: (t) => {
      if (t.isFinal) finals.push(t.text);
    },
  });
  try {
    await pipeline(Readable.from([wav]), new WavDecoder(), recognition.input);
  } catch (err) {
    recognition.abort();
    throw err;
  }
  await recognition.done;
  return finals.join(' ');
}
