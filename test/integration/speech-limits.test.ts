import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { waitFor } from '@aiplane/hack';
import { ORG_SCOPE, startTestApi, tokenFor, type TestApi } from './api-helpers.js';
import {
  encode,
  SENTENCES,
  speech,
  speechProcesses,
  streamSession,
  wavDurationMs,
} from './speech-helpers.js';

/** An open session kept alive with 100 ms of silence every 250 ms until released. */
async function holdSession(url: string): Promise<{ release(): Promise<void> }> {
  const ws = new WebSocket(url);
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => ws.send(JSON.stringify({ type: 'start' })));
    ws.once('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string };
      if (frame.type === 'session_ready') resolve();
      else reject(new Error(`no session: ${data.toString()}`));
    });
    ws.once('error', reject);
  });
  const timer = setInterval(() => ws.send(Buffer.alloc(3200)), 250);
  return {
    release: async () => {
      clearInterval(timer);
      ws.send(JSON.stringify({ type: 'end' }));
      await closed;
    },
  };
}

/**
 * The speech socket's limits (issue 19; docs/adr/0036, docs/configuration.md), each set low on
 * a test API: frame size, pace (real time × 4), session length, idle time, sessions per user
 * and per organization; and no decoder or engine process outlives its session.
 */
describe('speech-to-text limits on /v1/stt', function () {
  this.timeout(120_000);
  let api: TestApi;
  let member: string;
  let admin: string;
  let report: string;
  let reportMs: number;
  const url = (query: string, token = member) =>
    `${api.url.replace('http', 'ws')}/v1/stt?${query}&token=${token}`;
  const pcm16k = 'encoding=pcm_int16&sample_rate_hz=16000';

  before(async function () {
    [api, member, admin, report] = await Promise.all([
      startTestApi('speech-limits', {
        AIPLANE_STT_MAX_FRAME_BYTES: '65536',
        AIPLANE_STT_MAX_SESSION_SECONDS: '3',
        AIPLANE_STT_IDLE_TIMEOUT_SECONDS: '1',
        AIPLANE_STT_MAX_SESSIONS_PER_USER: '2',
        AIPLANE_STT_MAX_SESSIONS_PER_ORGANIZATION: '3',
        // No helper waits for a next session: every one running belongs to a session.
        AIPLANE_STT_WARM_ENGINES: '0',
      }),
      tokenFor('member'),
      tokenFor('admin', ORG_SCOPE),
      speech([SENTENCES.report]),
    ]);
    reportMs = wavDurationMs(report);
  });
  after(async function () {
    await api?.close();
  });

  it('answers speech_frame_too_large for a frame over AIPLANE_STT_MAX_FRAME_BYTES and closes 1009; one at the limit passes', async function () {
    // One frame of 65536 bytes: 1024 ms at 32 kHz (within the burst).
    const ok = await streamSession(url('encoding=pcm_int16&sample_rate_hz=32000'), {
      audio: Buffer.alloc(65536),
      durationMs: 1024,
      frameMs: 1024,
      speed: 4,
    });
    assert.equal(ok.closeCode, 1000, JSON.stringify(ok.error));
    const r = await streamSession(url(pcm16k), {
      audio: Buffer.alloc(65537),
      durationMs: 100,
      end: false,
    });
    assert.equal(r.error?.code, 'speech_frame_too_large');
    assert.equal(r.closeCode, 1009);
  });

  for (const [what, query, audio] of [
    // 4 s of 16 kHz PCM in two frames.
    ['PCM', pcm16k, () => Promise.resolve(Buffer.alloc(128_000))],
    // Compressed audio counts by what it decodes to: about 6 s of MP3 in one frame.
    [
      'MP3 (counted by what it decodes to)',
      'encoding=mp3',
      async () => encode(await speech([SENTENCES.report, SENTENCES.hello]), { encoding: 'mp3' }),
    ],
  ] as const) {
    it(`answers speech_rate_exceeded for ${what} sent at once, beyond 4 × real time and the 2 s burst`, async function () {
      const r = await streamSession(url(query), {
        audio: await audio(),
        durationMs: 200,
        frameMs: 100,
        speed: 1000,
        end: false,
      });
      assert.equal(r.error?.code, 'speech_rate_exceeded', JSON.stringify(r.error));
      assert.equal(r.closeCode, 1008);
    });
  }

  it('ends a session at AIPLANE_STT_MAX_SESSION_SECONDS with what it heard transcribed, then speech_session_too_long', async function () {
    const wav = await speech([SENTENCES.report, SENTENCES.hello]);
    const r = await streamSession(url(pcm16k), {
      audio: await encode(wav, { encoding: 'pcm_int16', rate: 16000 }),
      durationMs: wavDurationMs(wav),
      end: false,
    });
    assert.ok(r.text.includes('report'), `heard before the limit: "${r.text}"`);
    assert.equal(r.frames.at(-1)?.type, 'error', 'the error frame comes after the transcripts');
    assert.equal(r.error?.code, 'speech_session_too_long');
    assert.equal(r.closeCode, 1008);
  });

  it('ends a silent session at AIPLANE_STT_IDLE_TIMEOUT_SECONDS, transcribing what it heard first', async function () {
    const r = await streamSession(url(pcm16k), {
      audio: await encode(report, { encoding: 'pcm_int16', rate: 16000 }),
      durationMs: reportMs,
      speed: 3.5,
      end: false,
    });
    assert.ok(r.text.includes('report'), r.text);
    assert.equal(r.error?.code, 'speech_idle_timeout');
    assert.equal(r.closeCode, 1008);
    const silent = await streamSession(url(pcm16k), { handshake: null, end: false });
    assert.equal(silent.error?.code, 'speech_idle_timeout', 'no handshake either');
    assert.equal(silent.closeCode, 1008);
  });

  it('holds a user to AIPLANE_STT_MAX_SESSIONS_PER_USER and an organization to AIPLANE_STT_MAX_SESSIONS_PER_ORGANIZATION', async function () {
    const a = await holdSession(url(pcm16k));
    const b = await holdSession(url(pcm16k));
    const third = await streamSession(url(pcm16k));
    assert.equal(third.error?.code, 'speech_session_limit_reached');
    assert.equal(third.error?.limit, 'user');
    assert.equal(third.closeCode, 1013);
    // Another member of the organization: one more fits, then the organization is full.
    const c = await holdSession(url(pcm16k, admin));
    const fourth = await streamSession(url(pcm16k, admin));
    assert.equal(fourth.error?.code, 'speech_session_limit_reached');
    assert.equal(fourth.error?.limit, 'organization');
    await a.release();
    // A slot given back is taken again.
    const again = await streamSession(url(pcm16k));
    assert.equal(again.closeCode, 1000, JSON.stringify(again.error));
    await Promise.all([b.release(), c.release()]);
  });

  it('kills the session’s ffmpeg and engine when the client goes away mid-stream', async function () {
    const mp3 = await encode(report, { encoding: 'mp3' });
    const seen: string[] = [];
    const gone = streamSession(url('encoding=mp3'), {
      audio: mp3,
      durationMs: reportMs,
      end: false,
      onReady: (ws) => {
        void waitFor('the decoder and the engine to run', () => {
          const names = speechProcesses().map((p) => p.name);
          if (!names.includes('ffmpeg') || !names.some((n) => n.startsWith('aiplane-stt'))) {
            return Promise.resolve(false);
          }
          seen.push(...names);
          ws.terminate(); // no close handshake: the client is just gone
          return Promise.resolve(true);
        });
      },
    });
    await gone;
    assert.ok(seen.includes('ffmpeg'), `processes while streaming: ${seen.join(', ')}`);
    await waitFor('no speech process left', () => Promise.resolve(speechProcesses().length === 0));
  });
});
