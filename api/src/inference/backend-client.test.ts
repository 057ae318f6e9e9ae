import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { LeanRequestInit, LeanResponse } from '@aiplane/lib/mcp';
import { BackendFailure, callBackend, retryAfterMs } from './backend-client.js';

/** A request answering the statuses in order (a thrown error for 0), recording each call. */
function scripted(statuses: number[], headers: Record<string, string> = {}) {
  const calls: LeanRequestInit[] = [];
  const fetch = (_url: string, init: LeanRequestInit): Promise<LeanResponse> => {
    calls.push(init);
    const status = statuses.shift() ?? 200;
    if (status === 0) return Promise.reject(new Error('connect ECONNREFUSED'));
    const text = status === 200 ? '{}' : '{"error":{"message":"busy"}}';
    const bytes = new TextEncoder().encode(text);
    return Promise.resolve({
      status,
      header: (name: string) => headers[name.toLowerCase()],
      body: Object.assign(Readable.from([bytes]), {
        text: () => Promise.resolve(text),
        json: () => Promise.resolve(JSON.parse(text)),
      }),
    });
  };
  return { fetch, calls };
}

const call = (
  request: (url: string, init: LeanRequestInit) => Promise<LeanResponse>,
  waits: number[],
  signal = new AbortController().signal,
) =>
  callBackend({
    request,
    url: 'http://backend/v1/chat/completions',
    apiKey: 'k',
    body: { a: 1 },
    signal,
    retryBaseMs: 100,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  });

describe('callBackend: retries before the first byte', function () {
  it('retries a connect error, 503 and 429 and answers the success, backing off 100, 200, 400 ms', async function () {
    const s = scripted([0, 503, 429, 200]);
    const waits: number[] = [];
    const res = await call(s.fetch, waits);
    assert.equal(res.status, 200);
    assert.equal(s.calls.length, 4);
    assert.deepEqual(waits, [100, 200, 400]);
    assert.equal(s.calls[0]?.headers.authorization, 'Bearer k');
  });

  it('gives up after three retries with the last status', async function () {
    const s = scripted([503, 503, 503, 503, 200]);
    await assert.rejects(
      call(s.fetch, []),
      (e: unknown) => e instanceof BackendFailure && e.status === 503,
    );
    assert.equal(s.calls.length, 4);
  });

  it('does not retry a 400 or a 500', async function () {
    for (const status of [400, 500]) {
      const s = scripted([status]);
      await assert.rejects(
        call(s.fetch, []),
        (e: unknown) => e instanceof BackendFailure && e.status === status,
      );
      assert.equal(s.calls.length, 1);
    }
  });

  it('waits Retry-After when it is longer than the backoff', async function () {
    const s = scripted([429, 200], { 'retry-after': '2' });
    const waits: number[] = [];
    await call(s.fetch, waits);
    assert.deepEqual(waits, [2000]);
  });

  it('stops at once when aborted', async function () {
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    const fetch = () => Promise.reject(new Error('aborted'));
    await assert.rejects(call(fetch, [], ac.signal), BackendFailure);
  });

  it('reads Retry-After in seconds and as an HTTP date', function () {
    assert.equal(retryAfterMs('3'), 3000);
    assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6_000);
    assert.equal(retryAfterMs('soon'), undefined);
    assert.equal(retryAfterMs(null), undefined);
  });
});

describe('callBackend: an unreachable backend', function () {
  it('says why by the error’s code, never the address dialed; an address rule’s refusal says its rule', async function () {
    const refused = () =>
      Promise.reject(
        Object.assign(new Error('connect ECONNREFUSED 10.96.4.2:8000'), { code: 'ECONNREFUSED' }),
      );
    await assert.rejects(call(refused, []), (e: unknown) => {
      assert.ok(e instanceof BackendFailure);
      assert.equal(e.message, 'backend unreachable: ECONNREFUSED');
      return true;
    });
    const ruled = () =>
      Promise.reject(
        Object.assign(new Error('models.example.com resolves to a private address'), {
          name: 'DialRefusedError',
        }),
      );
    await assert.rejects(call(ruled, []), /backend unreachable: models\.example\.com resolves/);
  });
});
