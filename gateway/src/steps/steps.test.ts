import assert from 'node:assert/strict';
import type { Request, Response } from 'express';
import { createLogger } from '@aiplane/lib';
import type { ApiError } from '@aiplane/lib/errors';
import { parseKeyring } from '@aiplane/lib/crypto';
import { SessionBinder } from '../session-id.js';
import { refusalAnswer, refusedCalls } from './allowlist.js';
import { checkBody, readCall, requestRpcId } from './call.js';
import { forward } from './forward.js';
import { SessionUnknown, upstreamSession } from './session.js';

const SERVER = 'b5f3c1de-2a34-4c5b-8d6e-7f8091a2b3c4';

function request(method: string, body?: unknown, headers: Record<string, string> = {}): Request {
  const raw = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    method,
    body: raw,
    params: { server_id: SERVER },
    get: (name: string) => lower[name.toLowerCase()],
  } as unknown as Request;
}

interface RpcAnswer {
  id: number | string | null;
  error: { code: number; message: string };
}
const rpc = (text: string) => JSON.parse(text) as RpcAnswer;
const rpcList = (text: string) => JSON.parse(text) as RpcAnswer[];

const response = () => ({ locals: {} }) as unknown as Response;
const call = (name: unknown, id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

describe('gateway steps', () => {
  describe('call: read the request, check the body', () => {
    it('reads the messages and keeps the first request id for refusals', () => {
      const res = response();
      const c = readCall(request('POST', [{ jsonrpc: '2.0', method: 'x' }, call('add', 7)]), res);
      assert.equal(c.serverId, SERVER);
      assert.equal(c.messages?.length, 2);
      assert.equal(c.requestId, 7);
      assert.equal(requestRpcId(res), 7);
    });

    it('refuses a POST body that is not JSON-RPC (-32700) and forwards its own serialisation otherwise', () => {
      const res = response();
      const bad = readCall(request('POST', 'not an object'), res);
      const refused = checkBody(bad, () => undefined);
      assert.ok('refusal' in refused);
      assert.equal(refused.refusal.metric, 'parse_error');
      assert.equal(rpc(refused.refusal.body).error.code, -32700);
      const good = readCall(request('POST', call('add', 1)), res);
      assert.deepEqual(
        checkBody(good, () => undefined),
        {
          forward: JSON.stringify(call('add', 1)),
        },
      );
      assert.deepEqual(
        checkBody(readCall(request('GET'), res), () => undefined),
        {
          forward: undefined,
        },
      );
    });

    it('refuses Mcp-Method that disagrees with the body (-32020)', () => {
      const req = request('POST', call('add', 3), { 'mcp-method': 'tools/list' });
      const refused = checkBody(readCall(req, response()), (n) => req.get(n));
      assert.ok('refusal' in refused);
      assert.equal(refused.refusal.metric, 'header_mismatch');
      const body = rpc(refused.refusal.body);
      assert.equal(body.id, 3);
      assert.equal(body.error.code, -32020);
    });
  });

  describe('allowlist', () => {
    it('refuses a call of a tool outside the allowlist and one whose name is not a string', async () => {
      const c = readCall(request('POST', [call('add', 1), call('rm', 2), call(5, 3)]), response());
      const refused = await refusedCalls(c, ['add'], () => Promise.resolve(new Set(['add'])));
      assert.deepEqual([...refused.values()], ['rm', '5']);
      const answer = rpcList(refusalAnswer(c, refused));
      assert.deepEqual(
        answer.map((m) => [m.id, m.error.code]),
        [
          [1, -32600],
          [2, -32602],
          [3, -32602],
        ],
      );
    });

    it('refuses an allowed tool the upstream does not offer, asking only with an allowlist', async () => {
      let asked = 0;
      const offered = () => {
        asked++;
        return Promise.resolve(new Set(['other']));
      };
      const c = readCall(request('POST', call('add', 1)), response());
      assert.equal((await refusedCalls(c, ['add'], offered)).size, 1);
      assert.equal((await refusedCalls(c, [], offered)).size, 0);
      assert.equal(asked, 1);
      const single = rpc(refusalAnswer(c, await refusedCalls(c, ['add'], offered)));
      assert.equal(single.error.message, 'Unknown tool: add');
    });
  });

  describe('session', () => {
    const binder = new SessionBinder(parseKeyring(`k1:${Buffer.alloc(32, 1).toString('base64')}`));

    it('opens a session id issued to this user and server, and refuses it for anyone else', () => {
      const id = binder.bind('up-1', 'u1', SERVER);
      const req = request('POST', undefined, { 'mcp-session-id': id });
      assert.equal(upstreamSession(binder, req, 'u1', SERVER), 'up-1');
      assert.throws(() => upstreamSession(binder, req, 'u2', SERVER), SessionUnknown);
      assert.equal(upstreamSession(binder, request('POST'), 'u1', SERVER), undefined);
    });
  });

  describe('forward', () => {
    const logger = createLogger({ level: 'silent', name: 'test' });
    const limits = {
      connectTimeoutMs: 1000,
      headersTimeoutMs: 50,
      idleTimeoutMs: 1000,
      maxBufferedBytes: 1024,
    };
    const f = (abort = new AbortController()) => ({
      req: request('POST', undefined, { accept: 'application/json', 'x-api-key': 'secret' }),
      serverId: SERVER,
      bearer: 'tok',
      session: 'up-1',
      body: '{}',
      abort,
    });

    it('sends the MCP headers and the credential, nothing of the caller’s own', async () => {
      let seen: Record<string, string> = {};
      const fetch = (_url: string | URL, init?: RequestInit) => {
        seen = init?.headers as Record<string, string>;
        return Promise.resolve(new globalThis.Response('{}'));
      };
      const answer = await forward(
        { logger, upstreamLimits: limits },
        { url: 'http://u', fetch },
        f(),
      );
      assert.equal(answer?.status, 200);
      assert.deepEqual(seen, {
        authorization: 'Bearer tok',
        accept: 'application/json',
        'mcp-session-id': 'up-1',
      });
    });

    it('maps a silent upstream to mcp_server_timeout and a failed dial to mcp_server_unreachable', async () => {
      const silent = (_url: string | URL, init?: RequestInit) =>
        new Promise<globalThis.Response>((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        );
      await assert.rejects(
        forward({ logger, upstreamLimits: limits }, { url: 'http://u', fetch: silent }, f()),
        (err: ApiError) => err.code === 'mcp_server_timeout',
      );
      const refused = () => Promise.reject(new TypeError('fetch failed'));
      await assert.rejects(
        forward({ logger, upstreamLimits: limits }, { url: 'http://u', fetch: refused }, f()),
        (err: ApiError) => err.code === 'mcp_server_unreachable',
      );
    });

    it('answers nothing when the client has left', async () => {
      const abort = new AbortController();
      abort.abort();
      const fetch = () => Promise.reject(new Error('never called'));
      assert.equal(
        await forward({ logger, upstreamLimits: limits }, { url: 'http://u', fetch }, f(abort)),
        undefined,
      );
    });
  });
});
