import assert from 'node:assert/strict';
import { createLogger } from '@aiplane/lib';
import { DEFAULT_POCKETSPHINX_MODEL_DIR, PocketSphinxEngine } from '@aiplane/api';
import { speechHelperPath, startSttTestBackend, type SttTestBackend } from '@aiplane/hack';
import { call, ORG_SCOPE, startTestApi, tokenFor, type TestApi } from './api-helpers.js';
import { rememberSecret } from './secrets.js';
import {
  encode,
  SENTENCES,
  speech,
  streamSession,
  wavDurationMs,
  wordErrorRate,
} from './speech-helpers.js';

const MODEL = 'speech-backend-stt';
const BACKEND_KEY = 'sk-stt-backend-test-key';

/**
 * The production engine (issue 19; docs/adr/0036): a catalogue model of mode `stt` behind an
 * OpenAI-compatible `POST /v1/audio/transcriptions` backend, here a real server on loopback that
 * recognises with the local PocketSphinx engine. The API runs without its local engine, and
 * uses the catalogue model by default (AIPLANE_STT_DEFAULT_MODEL).
 */
describe('speech-to-text on /v1/stt through a catalogue stt model (OpenAI-compatible backend)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let backend: SttTestBackend;
  let engine: PocketSphinxEngine;
  let member: string;
  let admin: string;
  let modelId: string;
  let twoSentences: string;
  const url = (query: string) => `${api.url.replace('http', 'ws')}/v1/stt?${query}&token=${member}`;
  const transcriptions = () =>
    backend.requests.filter((r) => r.path === '/v1/audio/transcriptions');
  const setActive = async (active: boolean) => {
    const r = await call(`${api.url}/v1/models/${modelId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${admin}` },
      body: { active },
    });
    assert.equal(r.status, 200, r.text);
  };

  before(async function () {
    rememberSecret(BACKEND_KEY);
    engine = new PocketSphinxEngine({
      helper: speechHelperPath(),
      modelDir: DEFAULT_POCKETSPHINX_MODEL_DIR,
      warm: 1,
      interimIntervalMs: 300,
      pauseMs: 500,
      logger: createLogger({ level: 'silent', name: 'stt-test-backend' }),
    });
    backend = await startSttTestBackend({ engine, apiKey: BACKEND_KEY });
    [api, member, admin, twoSentences] = await Promise.all([
      startTestApi('speech-backend', {
        AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
        AIPLANE_INFERENCE_RETRY_BASE_MS: '1',
        AIPLANE_STT_DEFAULT_MODEL: MODEL,
        // This API has no local engine.
        AIPLANE_STT_POCKETSPHINX_HELPER: '',
      }),
      tokenFor('member'),
      tokenFor('admin', ORG_SCOPE),
      speech([SENTENCES.report, SENTENCES.hello]),
    ]);
    const r = await call(`${api.url}/v1/models`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: {
        name: MODEL,
        mode: 'stt',
        base_url: backend.baseUrl,
        backend_model: 'whisper-large-v3',
        api_key: BACKEND_KEY,
      },
    });
    assert.equal(r.status, 201, r.text);
    modelId = (r.json() as { id: string }).id;
  });
  after(async function () {
    await api?.close();
    await backend?.close();
    engine?.close();
  });

  it('sends each utterance as WAV with the model, the language and the key, and answers finals in order', async function () {
    const before = transcriptions().length;
    const r = await streamSession(url('encoding=opus'), {
      audio: await encode(twoSentences, { encoding: 'opus', container: 'webm' }),
      durationMs: wavDurationMs(twoSentences),
      speed: 3.5,
    });
    assert.equal(r.closeCode, 1000, JSON.stringify(r.error));
    assert.equal(r.ready?.model, MODEL, 'the default model');
    const finals = r.transcripts.filter((t) => t.is_final);
    assert.equal(finals.length, 2, JSON.stringify(finals));
    assert.ok(wordErrorRate(SENTENCES.report, finals[0]?.text ?? '') <= 0.4, finals[0]?.text);
    assert.ok(wordErrorRate(SENTENCES.hello, finals[1]?.text ?? '') <= 0.4, finals[1]?.text);
    assert.ok((finals[0]?.end_ms ?? 0) < (finals[1]?.start_ms ?? 0));
    const sent = transcriptions().slice(before);
    assert.equal(sent.length, 2, 'one request per utterance, no interim ones');
    for (const req of sent) {
      assert.equal(req.authorization, `Bearer ${BACKEND_KEY}`);
      assert.deepEqual(req.fields, {
        model: 'whisper-large-v3',
        language: 'en',
        response_format: 'json',
      });
      assert.equal(req.file?.type, 'audio/wav');
      assert.ok((req.file?.bytes ?? 0) > 44 + 16000, 'at least half a second of 16 kHz audio');
    }
  });

  it('serves every language of the socket: lang=de reaches the backend as language=de', async function () {
    const before = transcriptions().length;
    const report = await speech([SENTENCES.report]);
    const r = await streamSession(url('encoding=wav&lang=de'), {
      audio: await encode(report, { encoding: 'wav', rate: 16000 }),
      durationMs: wavDurationMs(report),
      speed: 3.5,
    });
    assert.equal(r.closeCode, 1000, JSON.stringify(r.error));
    assert.equal(r.ready?.lang, 'de');
    const sent = transcriptions().slice(before);
    assert.ok(sent.length >= 1);
    assert.ok(sent.every((req) => req.fields.language === 'de'));
  });

  it('sends interim results when asked: the utterance so far, again, while it runs', async function () {
    const report = await speech([SENTENCES.report]);
    const r = await streamSession(url('encoding=pcm_int16&sample_rate_hz=16000'), {
      handshake: { type: 'start', interim_results: true },
      audio: await encode(report, { encoding: 'pcm_int16', rate: 16000 }),
      durationMs: wavDurationMs(report),
      speed: 2,
    });
    assert.equal(r.closeCode, 1000, JSON.stringify(r.error));
    const finalAt = r.transcripts.findIndex((t) => t.is_final);
    assert.ok(finalAt > 0, 'interim results before the final');
    assert.ok(r.transcripts.slice(0, finalAt).every((t) => !t.is_final && t.text.length > 0));
    assert.ok(r.text.includes('report'), r.text);
  });

  it('retries a backend that fails twice, then transcribes', async function () {
    const report = await speech([SENTENCES.report]);
    backend.failNext(2, 503);
    const r = await streamSession(url('encoding=wav'), {
      audio: await encode(report, { encoding: 'wav', rate: 22050 }),
      durationMs: wavDurationMs(report),
      speed: 3.5,
    });
    assert.equal(r.closeCode, 1000, JSON.stringify(r.error));
    assert.ok(r.text.includes('report'), r.text);
  });

  for (const [what, setUp, code, close] of [
    [
      'keeps failing (503 after the retries)',
      (b: SttTestBackend) => b.failNext(4, 503),
      'speech_backend_unavailable',
      1013,
    ],
    [
      'refuses the platform’s key (401)',
      (b: SttTestBackend) => b.failNext(1, 401),
      'speech_engine_failed',
      1011,
    ],
    [
      'answers something that is not a transcription',
      (b: SttTestBackend) => b.answerNext({ segments: [] }),
      'speech_engine_failed',
      1011,
    ],
  ] as const) {
    it(`answers ${code} and closes ${close} when the backend ${what}`, async function () {
      const report = await speech([SENTENCES.report]);
      setUp(backend);
      const r = await streamSession(url('encoding=wav'), {
        audio: await encode(report, { encoding: 'wav', rate: 16000 }),
        durationMs: wavDurationMs(report),
        speed: 3.5,
      });
      assert.equal(r.error?.code, code, JSON.stringify(r.error));
      assert.ok(!JSON.stringify(r.error).includes(BACKEND_KEY));
      assert.equal(r.closeCode, close);
    });
  }

  it('answers speech_backend_unavailable when the default model is inactive, and for the local engine this server lacks', async function () {
    await setActive(false);
    try {
      const r = await streamSession(url('encoding=wav'));
      assert.equal(r.error?.code, 'speech_backend_unavailable');
      assert.equal(r.closeCode, 1013);
    } finally {
      await setActive(true);
    }
    const local = await streamSession(url('encoding=wav'), {
      handshake: { type: 'start', model: 'pocketsphinx-en-us' },
    });
    assert.equal(local.error?.code, 'speech_backend_unavailable');
    assert.equal(local.closeCode, 1013);
  });
});
