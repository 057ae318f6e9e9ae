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

function connect(url: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const out: Outcome = { frames: [] };
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ ...out, refusedWith: res.statusCode, refusalBody: body }));
    });
    ws.on('message', (data: Buffer) =>
      out.frames.push(JSON.parse(data.toString()) as Record<string, unknown>),
    );
    ws.on('close', (code) => resolve({ ...out, closeCode: code }));
    ws.on('error', (err) => {
      if (out.refusedWith === undefined) reject(err);
    });
  });
}

describe('WebSocket authentication on /v1/stt', function () {
  let api: TestApi;
  const ws = (query: string) => connect(`${api.url.replace('http', 'ws')}/v1/stt?${query}`);

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
    const r = await ws(`encoding=wav&lang=de&token=${await tokenFor('member')}`);
    assert.equal(r.refusedWith, undefined);
    // Authenticated and valid; no speech backend is configured yet, which the socket says.
    assert.deepEqual(
      r.frames.map((f) => (f.error as { code: string }).code),
      ['speech_backend_unavailable'],
    );
    assert.equal(r.closeCode, 1013);
  });

  it('accepts an API key in the token parameter', async function () {
    const created = await call(`${api.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFor('member')}` },
      body: { name: 'ws' },
    });
    const key = (created.json() as { key: string }).key;
    rememberSecret(key);
    const r = await ws(`encoding=pcm_int16&sample_rate_hz=16000&token=${key}`);
    assert.equal(r.refusedWith, undefined);
    assert.equal(r.closeCode, 1013);
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
