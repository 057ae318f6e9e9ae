import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { waitFor } from '@aiplane/hack';
import { startTestApi, tokenFor, type TestApi } from './api-helpers.js';
import {
  type AudioTarget,
  encode,
  type SessionResult,
  SENTENCES,
  speech,
  speechProcesses,
  streamSession,
  type TranscriptFrame,
  wavDurationMs,
  wordErrorRate,
} from './speech-helpers.js';

/** The words of the report sentence that carry its meaning. */
const KEY_WORDS = ['send', 'report', 'friday'];

interface Case {
  name: string;
  target: AudioTarget;
  query: string;
  handshake?: Record<string, unknown>;
  /** Narrowband audio: the wideband US English model reads 4–6.8 kHz, which it lacks. */
  narrowband?: boolean;
}

const CASES: Case[] = [
  ...[8000, 16000, 44100, 48000].map((rate): Case => ({
    name: `pcm_int16 at ${rate} Hz`,
    target: { encoding: 'pcm_int16', rate },
    query: `encoding=pcm_int16&sample_rate_hz=${rate}`,
    narrowband: rate === 8000,
  })),
  {
    name: 'pcm_float32 at 48 kHz, 2 channels',
    target: { encoding: 'pcm_float32', rate: 48000, channels: 2 },
    query: 'encoding=pcm_float32&sample_rate_hz=48000',
    handshake: { channels: 2 },
  },
  {
    name: 'wav (16-bit, 44.1 kHz stereo; header parsed)',
    target: { encoding: 'wav', rate: 44100, channels: 2 },
    query: 'encoding=wav',
  },
  { name: 'mp3', target: { encoding: 'mp3' }, query: 'encoding=mp3' },
  {
    name: 'opus in Ogg',
    target: { encoding: 'opus', container: 'ogg' },
    query: 'encoding=opus',
  },
  {
    name: 'opus in WebM (as browsers record it)',
    target: { encoding: 'opus', container: 'webm' },
    query: 'encoding=opus',
  },
];

/**
 * The speech socket with the local engine (issue 19; docs/adr/0036, docs/speech.md): speech
 * synthesised by espeak-ng, converted by ffmpeg into each encoding, streamed by a real `ws`
 * client to the real API, recognised by PocketSphinx.
 */
describe('speech-to-text on /v1/stt with the local engine (PocketSphinx)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let token: string;
  let report: string;
  let reportMs: number;
  const measured: { name: string; wer: number; text: string }[] = [];
  const url = (query: string) => `${api.url.replace('http', 'ws')}/v1/stt?${query}&token=${token}`;

  before(async function () {
    [api, token, report] = await Promise.all([
      startTestApi('speech'),
      tokenFor('member'),
      speech([SENTENCES.report]),
    ]);
    reportMs = wavDurationMs(report);
  });
  after(async function () {
    await api?.close();
    if (measured.length > 0) {
      const total = measured.reduce((n, m) => n + m.wer, 0) / measured.length;
      // The measured word error rates, for the record (docs/adr/0036).
      process.stdout.write(
        `  word error rates: ${measured.map((m) => `${m.name} ${(m.wer * 100).toFixed(0)}%`).join(', ')}; mean ${(total * 100).toFixed(1)}%\n`,
      );
    }
  });

  it('sends session_ready with the session’s parameters before any audio; lang defaults to en', async function () {
    const r = await streamSession(url('encoding=pcm_int16&sample_rate_hz=16000'), {
      handshake: { type: 'start', interim_results: true },
    });
    assert.equal(r.frames[0]?.type, 'session_ready');
    assert.equal(r.ready?.lang, 'en');
    assert.equal(r.ready?.model, 'pocketsphinx-en-us');
    assert.equal(r.ready?.encoding, 'pcm_int16');
    assert.equal(r.ready?.sample_rate_hz, 16000);
    assert.equal(r.ready?.channels, 1);
    assert.equal(r.ready?.interim_results, true);
    assert.match(String(r.ready?.session_id), /^[0-9a-f-]{36}$/);
    assert.deepEqual(r.ready?.limits, {
      max_frame_bytes: 262144,
      realtime_factor: 4,
      max_session_seconds: 3600,
      idle_timeout_seconds: 30,
    });
    assert.equal(r.closeCode, 1000, 'end with no audio closes normally');
  });

  describe('each encoding and rate', function () {
    const results = new Map<string, SessionResult>();

    // Three sessions at a time (each at 3.5 × real time): the cases are independent.
    before(async function () {
      const queue = [...CASES];
      const worker = async () => {
        for (let c = queue.shift(); c; c = queue.shift()) {
          const r = await streamSession(url(c.query), {
            handshake: { type: 'start', ...c.handshake },
            audio: await encode(report, c.target),
            durationMs: reportMs,
            speed: 3.5,
          });
          results.set(c.name, r);
        }
      };
      await Promise.all([worker(), worker(), worker()]);
    });

    for (const c of CASES) {
      it(`transcribes ${c.name}`, function () {
        const r = results.get(c.name) as SessionResult;
        assert.equal(r.error, undefined, JSON.stringify(r.error));
        assert.equal(r.closeCode, 1000);
        const finals = r.transcripts.filter((t) => t.is_final);
        assert.ok(finals.length >= 1, 'a final transcript');
        assert.ok(
          r.transcripts.every((t) => !t.is_final || t.start_ms < t.end_ms),
          'each final spans its audio',
        );
        const last = finals.at(-1) as TranscriptFrame;
        assert.ok(last.end_ms <= reportMs + 200, `ends within the audio (${last.end_ms} ms)`);
        const wer = wordErrorRate(SENTENCES.report, r.text);
        measured.push({ name: c.name, wer, text: r.text });
        if (c.narrowband) {
          // Telephone-band audio lacks what the wideband model listens to: it is decoded and
          // recognised, badly (measured in docs/adr/0036).
          assert.ok(r.text.length > 0, 'some words');
          return;
        }
        for (const w of KEY_WORDS) {
          assert.ok(r.text.split(' ').includes(w), `"${w}" in "${r.text}"`);
        }
        assert.ok(wer <= 0.4, `WER ${wer} for "${r.text}"`);
      });
    }

    it('keeps the mean word error rate of every encoding and rate at 40% or less', function () {
      assert.equal(measured.length, CASES.length, 'every encoding was measured');
      const mean = measured.reduce((n, m) => n + m.wer, 0) / measured.length;
      assert.ok(mean <= 0.4, `mean WER ${mean}`);
    });
  });

  it('streams in real time: interim results while speaking, a final at each pause, and end flushes the last', async function () {
    const wav = await speech([SENTENCES.report, SENTENCES.market]);
    const r = await streamSession(url('encoding=pcm_int16&sample_rate_hz=16000'), {
      handshake: { type: 'start', interim_results: true },
      audio: await encode(wav, { encoding: 'pcm_int16', rate: 16000 }),
      durationMs: wavDurationMs(wav),
    });
    assert.equal(r.closeCode, 1000, JSON.stringify(r.error));
    const finals = r.transcripts.filter((t) => t.is_final);
    assert.equal(finals.length, 2, JSON.stringify(finals.map((f) => f.text)));
    const [first, second] = finals as [TranscriptFrame, TranscriptFrame];
    // The first ended at the pause, before the second sentence was heard.
    const firstAt = r.transcripts.indexOf(first);
    assert.ok(
      r.transcripts.slice(0, firstAt).some((t) => !t.is_final),
      'interim results came before the first final',
    );
    assert.ok(first.end_ms < second.start_ms, 'in order, apart');
    assert.ok(wordErrorRate(SENTENCES.report, first.text) <= 0.4, first.text);
    assert.ok(wordErrorRate(SENTENCES.market, second.text) <= 0.4, second.text);
    assert.ok(
      first.words?.every((w) => w.start_ms >= first.start_ms && w.end_ms <= first.end_ms),
      'word times within the utterance',
    );
    assert.ok(r.transcripts.every((t) => typeof t.text === 'string' && t.text.length > 0));
  });

  it('sends no interim results unless the handshake asks for them', async function () {
    const r = await streamSession(url('encoding=pcm_int16&sample_rate_hz=16000'), {
      audio: await encode(report, { encoding: 'pcm_int16', rate: 16000 }),
      durationMs: reportMs,
      speed: 3.5,
    });
    assert.equal(r.closeCode, 1000);
    assert.ok(r.transcripts.length > 0);
    assert.ok(r.transcripts.every((t) => t.is_final));
  });

  it('runs two sessions of one user at once, each with its own audio and transcript', async function () {
    const hello = await speech([SENTENCES.hello]);
    const [a, b] = await Promise.all([
      streamSession(url('encoding=pcm_int16&sample_rate_hz=16000'), {
        audio: await encode(report, { encoding: 'pcm_int16', rate: 16000 }),
        durationMs: reportMs,
        speed: 3.5,
      }),
      streamSession(url('encoding=wav'), {
        audio: readFileSync(hello),
        durationMs: wavDurationMs(hello),
        speed: 3.5,
      }),
    ]);
    assert.notEqual(a.ready?.session_id, b.ready?.session_id);
    assert.equal(a.closeCode, 1000);
    assert.equal(b.closeCode, 1000);
    assert.ok(wordErrorRate(SENTENCES.report, a.text) <= 0.4, a.text);
    assert.ok(wordErrorRate(SENTENCES.hello, b.text) <= 0.4, b.text);
    assert.ok(!a.text.includes('hello') && !b.text.includes('friday'), 'no words of the other');
  });

  it('stops reading the socket while the engine is behind, holding a bounded amount of audio, and goes on when it catches up', async function () {
    const wav = await speech([SENTENCES.report, SENTENCES.hello, SENTENCES.market]);
    const durationMs = wavDurationMs(wav);
    const metric = async (name: string) =>
      (await api.registry.getSingleMetric(name)?.get())?.values.reduce((n, v) => n + v.value, 0) ??
      0;
    const audioBefore = await metric('aiplane_stt_audio_seconds_total');
    const stopped: number[] = [];
    let heldSeconds = -1;
    let pausedWhileStopped = -1;
    const r = await streamSession(url('encoding=pcm_int16&sample_rate_hz=16000'), {
      audio: await encode(wav, { encoding: 'pcm_int16', rate: 16000 }),
      durationMs,
      speed: 3.5,
      // A slow engine: its helper stopped (SIGSTOP) while the client sends.
      onReady: () => {
        for (const p of speechProcesses()) {
          process.kill(p.pid, 'SIGSTOP');
          stopped.push(p.pid);
        }
      },
      onSent: () => {
        void (async () => {
          await waitFor('the session to stop reading', async () => {
            return (await metric('aiplane_stt_sessions_paused')) === 1;
          });
          pausedWhileStopped = await metric('aiplane_stt_sessions_paused');
          heldSeconds = (await metric('aiplane_stt_audio_seconds_total')) - audioBefore;
          for (const pid of stopped) process.kill(pid, 'SIGCONT');
        })();
      },
    });
    assert.ok(stopped.length > 0, 'the engine’s helper was found');
    assert.equal(pausedWhileStopped, 1);
    // All of it was sent; the server took in what its pipes and buffers hold, not more.
    assert.ok(heldSeconds > 0 && heldSeconds < durationMs / 1000 - 2, `held ${heldSeconds} s`);
    assert.equal(r.closeCode, 1000, JSON.stringify(r.error));
    assert.ok(r.text.includes('report') && r.text.includes('market'), r.text);
    const total = (await metric('aiplane_stt_audio_seconds_total')) - audioBefore;
    assert.ok(Math.abs(total - durationMs / 1000) < 0.1, `all ${total} s decoded in the end`);
    assert.equal(await metric('aiplane_stt_sessions_paused'), 0);
  });

  describe('refusals', function () {
    const refused = async (query: string, opts: Parameters<typeof streamSession>[1] = {}) =>
      streamSession(url(query), opts);

    it('answers speech_audio_before_ready for audio before the handshake, and closes 1008', async function () {
      const r = await refused('encoding=pcm_int16&sample_rate_hz=16000', {
        handshake: null,
        audio: Buffer.alloc(3200),
        end: false,
      });
      assert.equal(r.ready, undefined);
      assert.equal(r.error?.code, 'speech_audio_before_ready');
      assert.equal(r.closeCode, 1008);
    });

    for (const [name, handshake, field] of [
      ['not JSON', 'hello', 'JSON'],
      ['without type start', { type: 'begin' }, 'type'],
      ['with an unknown field', { type: 'start', language: 'de' }, 'unknown field'],
      ['with 9 channels', { type: 'start', channels: 9 }, 'channels'],
      [
        'with interim_results not a boolean',
        { type: 'start', interim_results: 'yes' },
        'interim_results',
      ],
    ] as const) {
      it(`answers speech_message_invalid for a handshake ${name}`, async function () {
        const r = await refused('encoding=pcm_int16&sample_rate_hz=16000', { handshake });
        assert.equal(r.error?.code, 'speech_message_invalid');
        assert.ok(r.error?.message.includes(field), r.error?.message);
        assert.equal(r.closeCode, 1008);
      });
    }

    it('answers speech_message_invalid for channels with an encoding whose stream says them', async function () {
      const r = await refused('encoding=wav', { handshake: { type: 'start', channels: 2 } });
      assert.equal(r.error?.code, 'speech_message_invalid');
      assert.match(r.error?.message ?? '', /channels/);
    });

    it('answers speech_message_invalid for a text message other than end after session_ready', async function () {
      const r = await refused('encoding=pcm_int16&sample_rate_hz=16000', {
        onReady: (ws) => ws.send(JSON.stringify({ type: 'pause' })),
        end: false,
      });
      assert.ok(r.ready);
      assert.equal(r.error?.code, 'speech_message_invalid');
      assert.equal(r.closeCode, 1008);
    });

    it('answers speech_language_unavailable, not unsupported_language, for a language the local engine cannot hear', async function () {
      const r = await refused('encoding=wav&lang=de');
      assert.equal(r.ready, undefined);
      assert.equal(r.error?.code, 'speech_language_unavailable');
      assert.equal(r.error?.model, 'pocketsphinx-en-us');
      assert.deepEqual(r.error?.engine_languages, ['en']);
      assert.equal(r.closeCode, 1008);
    });

    it('answers model_not_found for a model the organization does not have', async function () {
      const r = await refused('encoding=wav', {
        handshake: { type: 'start', model: 'no-such-stt' },
      });
      assert.equal(r.error?.code, 'model_not_found');
      assert.equal(r.closeCode, 1008);
    });

    const corrupt: [string, string, () => Promise<Buffer>][] = [
      [
        'a WAV without its RIFF header',
        'encoding=wav',
        () => Promise.resolve(Buffer.alloc(8000, 7)),
      ],
      [
        'a WAV of an unsupported format (µ-law)',
        'encoding=wav',
        () => {
          // The format tag of the fmt chunk: 7 is µ-law.
          const copy = Buffer.from(readFileSync(report));
          copy.writeUInt16LE(7, 20);
          return Promise.resolve(copy);
        },
      ],
      ['MP3 that is noise', 'encoding=mp3', () => Promise.resolve(Buffer.alloc(20000, 0x55))],
      ['opus in neither Ogg nor WebM', 'encoding=opus', () => encode(report, { encoding: 'mp3' })],
      [
        'Ogg/Opus whose pages break after the start',
        'encoding=opus',
        async () => {
          const ogg = await encode(report, { encoding: 'opus', container: 'ogg' });
          const broken = Buffer.from(ogg);
          for (let i = 1200; i < broken.length; i += 7) broken[i] = (broken[i] as number) ^ 0xa5;
          return broken;
        },
      ],
      [
        'WebM/Opus whose clusters break after the start',
        'encoding=opus',
        async () => {
          const webm = await encode(report, { encoding: 'opus', container: 'webm' });
          const broken = Buffer.from(webm);
          for (let i = 1500; i < broken.length; i += 5) broken[i] = 0xff;
          return broken;
        },
      ],
    ];
    for (const [name, query, make] of corrupt) {
      it(`answers speech_audio_invalid for ${name}, closes 1007, and leaves no process behind`, async function () {
        const r = await refused(query, {
          audio: await make(),
          durationMs: reportMs,
          speed: 4,
          end: false,
        });
        assert.equal(r.error?.code, 'speech_audio_invalid', JSON.stringify(r.error));
        assert.equal(r.closeCode, 1007);
        // The warm helper waits for the next session; the session's own are gone.
        await waitFor('no ffmpeg left', () =>
          Promise.resolve(!speechProcesses().some((p) => p.name === 'ffmpeg')),
        );
      });
    }
  });
});
