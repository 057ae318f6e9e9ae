import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { call, startTestApi, tokenFor, type TestApi } from './api-helpers.js';
import { rememberSecret } from './secrets.js';

interface Outcome {
  /** HTTP status when the upgrade was refused. */
  refusedWith?: number;
  refusalBody?: string;
  frames: Record<string, unknown>[];
  closeCode?: number;
}

/** Connects; when the socket opens, sends `handshake` (if any) and closes once session_ready came. */
function connect(url: string, handshake?: unknown): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const out: Outcome = { frames: [] };
    if (handshake !== undefined) ws.on('open', () => ws.send(JSON.stringify(handshake)));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ ...out, refusedWith: res.statusCode, refusalBody: body }));
    });
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as Record<string, unknown>;
      out.frames.push(frame);
      if (frame.type === 'session_ready') ws.close(1000);
    });
    ws.on('close', (code) => resolve({ ...out, closeCode: code }));
    ws.on('error', (err) => {
      if (out.refusedWith === undefined) reject(err);
    });
  });
}

describe('WebSocket authentication on /v1/stt', function () {
  let api: TestApi;
  const ws = (query: string, handshake?: unknown) =>
    connect(`${api.url.replace('http', 'ws')}/v1/stt?${query}`, handshake);

  before(async function () {
    api = await startTestApi('api-ws');
  });
  after(async function () {
    await api?.close();
  });

  it('refuses the upgrade with 401 when no token is sent', async function () {
    const r = await ws('encoding=wav');
    assert.equal(r.refusedWith, 401);
    assert.equal(
      (JSON.parse(r.refusalBody ?? '{}') as { error: { code: string } }).error.code,
      'authentication_required',
    );
  });

  it('refuses the upgrade with 401 for an invalid token', async function () {
    assert.equal((await ws('encoding=wav&token=garbage')).refusedWith, 401);
  });

  it('refuses the upgrade with 403 for a user without can_access_api', async function () {
    assert.equal((await ws(`encoding=wav&token=${await tokenFor('outsider')}`)).refusedWith, 403);
  });

  it('accepts a JWT in the token parameter and checks the session parameters', async function () {
    const r = await ws(`encoding=wav&lang=en&token=${await tokenFor('member')}`, {
      type: 'start',
    });
    assert.equal(r.refusedWith, undefined);
    // Authenticated and valid: the session starts (speech.test.ts goes on from here).
    assert.deepEqual(
      r.frames.map((f) => f.type),
      ['session_ready'],
    );
    assert.equal(r.closeCode, 1000);
  });

  it('accepts an API key in the token parameter', async function () {
    const created = await call(`${api.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFor('member')}` },
      body: { name: 'ws' },
    });
    const key = (created.json() as { key: string }).key;
    rememberSecret(key);
    const r = await ws(`encoding=pcm_int16&sample_rate_hz=16000&token=${key}`, {
      type: 'start',
    });
    assert.equal(r.refusedWith, undefined);
    assert.equal(r.frames[0]?.type, 'session_ready');
    assert.equal(r.closeCode, 1000);
  });

  it('closes with an unsupported_language frame and 1008 for an unsupported lang', async function () {
    const r = await ws(`encoding=wav&lang=xx&token=${await tokenFor('member')}`);
    const err = r.frames[0]?.error as { code: string; supported_languages: string[] };
    assert.equal(err.code, 'unsupported_language');
    assert.deepEqual(err.supported_languages, ['cs', 'de', 'el', 'en', 'fr', 'sk']);
    assert.equal(r.closeCode, 1008);
  });

  it('closes with 1008 and the supported languages when the old `language` parameter is used', async function () {
    const r = await ws(`encoding=wav&language=de&token=${await tokenFor('member')}`);
    assert.equal(r.closeCode, 1008);
    assert.ok(
      (r.frames[0]?.error as { supported_languages?: string[] }).supported_languages?.includes(
        'de',
      ),
    );
  });

  it('closes with 1008 when a PCM encoding comes without sample_rate_hz', async function () {
    const r = await ws(`encoding=pcm_float32&token=${await tokenFor('member')}`);
    assert.equal(r.closeCode, 1008);
    assert.equal((r.frames[0]?.error as { code: string }).code, 'invalid_sample_rate');
  });
});
