import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type SpeechEngine, WavDecoder } from '@aiplane/api';

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
  let failures = { count: 0, status: 503 };
  const answers: unknown[] = [];
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { message: (err as Error).message } });
    });
  });

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
    if (failures.count > 0) {
      failures.count -= 1;
      json(res, failures.status, { error: { message: `injected failure ${failures.status}` } });
      return;
    }
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
    if (answers.length > 0) {
      json(res, 200, answers.shift());
      return;
    }
    const text = await recognise(opts.engine, Buffer.from(await file.arrayBuffer()));
    json(res, 200, { text });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(count, status) {
      failures = { count, status };
    },
    answerNext(answer) {
      answers.push(answer);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
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

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
