import { type Static, Type } from '@sinclair/typebox';
import { type ErrorCode, ValidationFailed } from '@aiplane/lib/errors';
import { validator } from '@aiplane/lib/service';
import { MODEL_NAME_PATTERN } from '../inference/model-catalogue.js';
import type { Transcript } from './engine.js';
import type { SpeechLimits } from './speech-config.js';
import { MAX_CHANNELS, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE } from './pcm.js';

/** The languages of the socket (spec: core-api.md, `/v1/stt` query parameters; ISO 639-1). */
export const STT_LANGUAGES = ['cs', 'de', 'el', 'en', 'fr', 'sk'] as const;
export const STT_ENCODINGS = ['pcm_int16', 'pcm_float32', 'wav', 'mp3', 'opus'] as const;
export type SttEncoding = (typeof STT_ENCODINGS)[number];

/** A refusal of the socket: an error frame `{type: "error", error: {code, message, …extra}}`. */
export interface SocketError {
  code: ErrorCode;
  message: string;
  extra?: Record<string, unknown>;
}

/** What the query of `WS /v1/stt` asks for, checked. */
export interface SessionQuery {
  lang: string;
  encoding: SttEncoding;
  /** For the PCM encodings: the rate of the samples sent. */
  sampleRate?: number;
}

/**
 * The query rules (spec: core-api.md, `/v1/stt` query parameters and Errors), first failure
 * wins: the old `language` (release 1.2.0) → `parameter_renamed`; `lang` (default `en`) not one
 * of the six → `unsupported_language`; `encoding` missing or unknown → `invalid_encoding`;
 * `sample_rate_hz` missing for a PCM encoding, or not an integer from 8000 to 192000 →
 * `invalid_sample_rate` (it is ignored for the other encodings, whose streams say their rate).
 */
export function sessionQuery(q: URLSearchParams): SessionQuery | SocketError {
  const supported = { supported_languages: STT_LANGUAGES };
  if (q.has('language')) {
    return {
      code: 'parameter_renamed',
      message: '`language` was renamed to `lang`',
      extra: supported,
    };
  }
  const lang = q.get('lang') ?? 'en';
  if (!(STT_LANGUAGES as readonly string[]).includes(lang)) {
    return {
      code: 'unsupported_language',
      message: `language "${lang.slice(0, 32)}" is not supported`,
      extra: supported,
    };
  }
  const encoding = q.get('encoding');
  if (!encoding || !(STT_ENCODINGS as readonly string[]).includes(encoding)) {
    return {
      code: 'invalid_encoding',
      message: `encoding must be one of ${STT_ENCODINGS.join(', ')}`,
    };
  }
  const e = encoding as SttEncoding;
  if (e !== 'pcm_int16' && e !== 'pcm_float32') return { lang, encoding: e };
  const raw = q.get('sample_rate_hz');
  const rate = raw !== null && /^[1-9]\d{3,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(rate >= MIN_SAMPLE_RATE && rate <= MAX_SAMPLE_RATE)) {
    return {
      code: 'invalid_sample_rate',
      message: `sample_rate_hz (an integer from ${MIN_SAMPLE_RATE} to ${MAX_SAMPLE_RATE}) is required for ${e}`,
    };
  }
  return { lang, encoding: e, sampleRate: rate };
}

/** The client's first message (docs/speech.md). */
export const SttHandshake = Type.Object(
  {
    type: Type.Literal('start'),
    channels: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_CHANNELS,
        description: 'interleaved channels of pcm_int16 / pcm_float32 (default 1); averaged',
      }),
    ),
    interim_results: Type.Optional(
      Type.Boolean({ description: 'interim transcripts while an utterance runs (default false)' }),
    ),
    model: Type.Optional(
      Type.String({
        pattern: MODEL_NAME_PATTERN,
        description:
          'the engine: `pocketsphinx-en-us` (local, English) or a catalogue model of mode stt; default AIPLANE_STT_DEFAULT_MODEL',
      }),
    ),
  },
  { additionalProperties: false, title: 'SttHandshake' },
);
export type SttHandshake = Static<typeof SttHandshake>;
const checkHandshake = validator(SttHandshake);

/** The most bytes of a text message (the handshake, `end`). */
export const MAX_TEXT_MESSAGE_BYTES = 4096;

/** A text message as JSON, or the socket error naming what is wrong with it. */
function json(text: string): unknown {
  if (Buffer.byteLength(text) > MAX_TEXT_MESSAGE_BYTES) {
    throw invalidMessage(`a text message may have ${MAX_TEXT_MESSAGE_BYTES} bytes at most`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalidMessage('a text message must be a JSON object');
  }
}

class MessageRefused extends Error {
  constructor(readonly refusal: SocketError) {
    super(refusal.message);
  }
}
const invalidMessage = (message: string) =>
  new MessageRefused({ code: 'speech_message_invalid', message });

/** The handshake of `text` for a session with `encoding`, or the error to close with. */
export function parseHandshake(text: string, encoding: SttEncoding): SttHandshake | SocketError {
  try {
    const h = checkHandshake(json(text));
    if (h.channels !== undefined && encoding !== 'pcm_int16' && encoding !== 'pcm_float32') {
      throw invalidMessage(
        `channels: only for pcm_int16 and pcm_float32 (a ${encoding} stream says how many it has)`,
      );
    }
    return h;
  } catch (err) {
    return refusalOf(err, 'the first message must be the handshake {"type":"start", …}');
  }
}

/** A text message after the handshake: `{"type":"end"}`, or the error to close with. */
export function parseControl(text: string): 'end' | SocketError {
  try {
    const m = json(text) as { type?: unknown } | null;
    if (m !== null && typeof m === 'object' && m.type === 'end' && Object.keys(m).length === 1) {
      return 'end';
    }
    throw invalidMessage('after the handshake the only text message is {"type":"end"}');
  } catch (err) {
    return refusalOf(err, '');
  }
}

function refusalOf(err: unknown, context: string): SocketError {
  if (err instanceof MessageRefused) return err.refusal;
  if (err instanceof ValidationFailed) {
    const fields = err.fields.map((f) => `${f.field}: ${f.message}`).join('; ');
    return { code: 'speech_message_invalid', message: `${context} (${fields})` };
  }
  throw err;
}

/** `{type: "error", error: {code, message, …}}`: the frame before the socket closes. */
export function errorFrame(e: SocketError): string {
  return JSON.stringify({ type: 'error', error: { code: e.code, message: e.message, ...e.extra } });
}

/** A transcript frame (docs/speech.md). */
export function transcriptFrame(t: Transcript): string {
  return JSON.stringify({
    type: 'transcript',
    text: t.text,
    is_final: t.isFinal,
    start_ms: t.startMs,
    end_ms: t.endMs,
    ...(t.words
      ? { words: t.words.map((w) => ({ word: w.word, start_ms: w.startMs, end_ms: w.endMs })) }
      : {}),
  });
}

/** `session_ready`: the session's parameters and limits (docs/speech.md). */
export function readyFrame(r: {
  sessionId: string;
  model: string;
  query: SessionQuery;
  handshake: SttHandshake;
  limits: SpeechLimits;
}): string {
  const { lang, encoding, sampleRate } = r.query;
  return JSON.stringify({
    type: 'session_ready',
    session_id: r.sessionId,
    model: r.model,
    lang,
    encoding,
    ...(sampleRate === undefined ? {} : { sample_rate_hz: sampleRate }),
    ...(encoding.startsWith('pcm_') ? { channels: r.handshake.channels ?? 1 } : {}),
    interim_results: r.handshake.interim_results === true,
    limits: {
      max_frame_bytes: r.limits.maxFrameBytes,
      realtime_factor: r.limits.realtimeFactor,
      max_session_seconds: r.limits.maxSessionSeconds,
      idle_timeout_seconds: r.limits.idleTimeoutSeconds,
    },
  });
}
