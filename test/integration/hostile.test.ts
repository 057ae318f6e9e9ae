import assert from 'node:assert/strict';
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import { startMcpTestServer, type McpTestServer } from '@aiplane/hack';
import { unsafeMarkers } from '../../api/src/platform/svg-xss-corpus.js';
import {
  bytesOf,
  GATEWAY_HEADERS,
  loadCorpus,
  type Entry,
  type Expect,
  type HttpEntry,
  type RawEntry,
  type WsEntry,
} from '../hostile/corpus.js';
import {
  createApiKey,
  keycloak,
  ORG_SCOPE,
  startTestApi,
  tokenFor,
  type TestApi,
} from './api-helpers.js';
import { startGatewayStack, type GatewayStack } from './fixtures/index.js';
import { initializeRequest } from './gateway-helpers.js';
import { link, registerRemote } from './mcp-helpers.js';
import { newSecret } from './secrets.js';

/** What one entry got back. */
interface Outcome {
  status: number;
  body: Buffer;
  contentType: string;
}

/** Strings the replay's requests stand in for (`{jwt}`, `{key}`, …). */
interface Fill {
  jwt: string;
  key: string;
  org: string;
  host: string;
}

const fill = (s: string, f: Fill): string =>
  s.replace(/\{(jwt|key|org|host)\}/g, (_, k: keyof Fill) => f[k]);

/** The platform code of an answer: `error.code`, or a JSON-RPC error's `error.data.code`. */
function codeOf(body: Buffer): string | undefined {
  try {
    const j = JSON.parse(body.toString('utf8')) as {
      error?: { code?: unknown; data?: { code?: unknown } };
    };
    const c = typeof j.error?.code === 'string' ? j.error.code : j.error?.data?.code;
    return typeof c === 'string' ? c : undefined;
  } catch {
    // A raw answer: its first code, if any.
    return /"code":"([a-z_]+)"/.exec(body.toString('latin1'))?.[1];
  }
}

/** Why an outcome breaks the entry's expectation, or undefined when it keeps it. */
function mismatch(o: Outcome, e: Expect): string | undefined {
  const text = o.body.toString('utf8').slice(0, 200);
  if (o.status >= 500) return `answered ${o.status}: ${text}`;
  if (o.status === 0) return 'no answer (the connection closed without a status)';
  if (e.status !== undefined) {
    const allowed = Array.isArray(e.status) ? e.status : [e.status];
    if (!allowed.includes(o.status))
      return `answered ${o.status}, expected ${allowed.join(' or ')}: ${text}`;
  }
  if (e.refused && (o.status < 400 || o.status > 499))
    return `accepted with ${o.status}, expected a 4xx: ${text}`;
  if (e.code !== undefined) {
    const code = codeOf(o.body);
    if (e.code === null ? code !== undefined : code !== e.code) {
      return `code ${code ?? '(none)'}, expected ${e.code ?? '(none)'} (status ${o.status}): ${text}`;
    }
  }
  for (const s of e.absent ?? []) {
    if (o.body.toString('latin1').includes(s)) return `the answer contains ${JSON.stringify(s)}`;
  }
  return undefined;
}

/** Runs `work` over `items`, `n` at a time. */
async function pool<T>(items: T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * Issue 22, hostile input: every entry of the corpus in test/hostile/ (data, one file per kind)
 * replayed against the real API, the gateway and the speech socket. Per entry: no 5xx, the
 * status and code the spec names (or some 4xx where it names none), nothing that must stay
 * out of an answer in it; per group: the processes still answer /readyz, a normal request
 * still works, and Object.prototype in this process (where API and gateway run) is clean.
 */
describe('hostile input: the corpus of test/hostile replayed against the API, the gateway and the speech socket', function () {
  this.timeout(120_000);
  let api: TestApi;
  let stack: GatewayStack;
  let upstream: McpTestServer;
  let endpoint: string;
  let f: Fill;
  let member: string;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const credential = newSecret('hostile-upstream');
  const groups = loadCorpus();

  before(async function () {
    this.timeout(240_000);
    upstream = await startMcpTestServer({
      token: credential,
      tools: [{ name: 'search', title: 'Search', description: 'Finds documents' }],
    });
    // The corpus's API: strict (no loopback upstreams), a small frame limit for the socket.
    [api, stack] = await Promise.all([
      startTestApi('hostile', { AIPLANE_STT_MAX_FRAME_BYTES: '65536' }),
      startGatewayStack('hostile', 'hostile'),
    ]);
    const serverId = await registerRemote(stack.admin, { name: 'hostile', address: upstream.url });
    await link(stack.member, serverId, credential);
    endpoint = `${stack.gateway.url}/servers/${serverId}/mcp`;
    const [jwt, key] = await Promise.all([
      tokenFor('admin', ORG_SCOPE),
      createApiKey(api.url, 'admin', 'hostile'),
    ]);
    member = await tokenFor('member', ORG_SCOPE);
    f = { jwt, key, org: keycloak().organization.id, host: new URL(api.url).host };
    // The gateway knows the server once an initialize passes (its cache may lag the API).
    await waitForGateway();
  });

  after(async function () {
    agent.destroy();
    if (api)
      await send({
        id: 'reset',
        note: '',
        kind: 'http',
        method: 'POST',
        path: '/v1/branding/logo/reset',
        as: 'admin',
        expect: {},
      });
    await Promise.all([api?.close(), stack?.close(), upstream?.close()]);
  });

  async function waitForGateway(): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await send({
        id: 'init',
        note: '',
        kind: 'http',
        target: 'gateway',
        method: 'POST',
        path: '',
        as: 'member',
        org: 'none',
        headers: GATEWAY_HEADERS,
        body: { json: initializeRequest() },
        expect: {},
      });
      if (r.status === 200) return;
      if (Date.now() > deadline)
        throw new Error(`the gateway does not serve the server: ${r.status}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** An HTTP entry, sent with node:http (which, unlike fetch, sends TRACE and odd bytes). */
  function send(e: HttpEntry): Promise<Outcome> {
    const base = e.target === 'gateway' ? endpoint : api.url;
    const url = new URL(base);
    const headers: Record<string, string> = {};
    if (e.as === 'admin') headers.authorization = `Bearer ${f.jwt}`;
    if (e.as === 'member') headers.authorization = `Bearer ${member}`;
    if (e.as === 'apikey') headers['x-api-key'] = f.key;
    const org = e.org ?? 'default';
    if (org === 'default') headers['x-aiplane-organization'] = f.org;
    else if (org !== 'none') headers['x-aiplane-organization'] = fill(org.value, f);
    for (const [k, v] of Object.entries(e.headers ?? {})) headers[k] = fill(v, f);
    const body = e.body === undefined ? undefined : bytesOf(e.body);
    if (body) headers['content-length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: e.method,
          path: e.target === 'gateway' ? `${url.pathname}${e.path}` : e.path,
          headers,
          agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks),
              contentType: String(res.headers['content-type'] ?? ''),
            }),
          );
          res.on('error', reject);
        },
      );
      req.setTimeout(20_000, () => req.destroy(new Error(`${e.id}: no answer in 20 s`)));
      // The server may answer (413, 431) and close before the whole body is written.
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE' || err.code === 'ECONNRESET')
          resolve({ status: 0, body: Buffer.from(err.code), contentType: '' });
        else reject(err);
      });
      req.end(body);
    });
  }

  /** A raw entry, written byte for byte over a socket; the answer read until the server closes. */
  function sendRaw(e: RawEntry): Promise<Outcome> {
    const url = new URL(api.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      const chunks: Buffer[] = [];
      socket.setTimeout(10_000, () => socket.destroy(new Error(`${e.id}: no answer in 10 s`)));
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNRESET' || err.code === 'EPIPE') socket.destroy();
        else reject(err);
      });
      socket.on('close', () => {
        const all = Buffer.concat(chunks);
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(all.toString('latin1'))?.[1] ?? 0);
        const split = all.indexOf('\r\n\r\n');
        resolve({ status, body: split < 0 ? all : all.subarray(split + 4), contentType: '' });
      });
      socket.write(Buffer.from(fill(e.raw, f), 'latin1'));
      if (e.tail) socket.write(bytesOf(e.tail));
    });
  }

  /** A speech socket session: the frames in order; the error frame's code and the close code. */
  function session(e: WsEntry): Promise<{ status?: number; code?: string; close?: number }> {
    const query = `${e.query.replace('{token}', encodeURIComponent(f.jwt))}&organization=${f.org}`;
    const ws = new WebSocket(`${api.url.replace('http', 'ws')}/v1/stt?${query}`);
    let code: string | undefined;
    let ready: (() => void) | undefined;
    let readySeen = false;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error(`${e.id}: the socket did not close in 15 s`));
      }, 15_000);
      ws.on('unexpected-response', (_req, res) => {
        clearTimeout(timer);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          ws.terminate();
          resolve({ status: res.statusCode, code: codeOf(Buffer.concat(chunks)) });
        });
      });
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) return;
        const m = JSON.parse(data.toString('utf8')) as { type?: string; error?: { code?: string } };
        if (m.type === 'error') code = m.error?.code;
        if (m.type === 'session_ready') {
          readySeen = true;
          ready?.();
        }
      });
      ws.on('error', () => undefined); // the close event follows
      ws.on('close', (close: number) => {
        clearTimeout(timer);
        ready?.();
        resolve({ code, close });
      });
      ws.on('open', () => {
        void (async () => {
          for (const frame of e.frames) {
            if (ws.readyState !== WebSocket.OPEN) return;
            if ('awaitReady' in frame) {
              if (!readySeen) await new Promise<void>((r) => (ready = r));
            } else if ('text' in frame) ws.send(frame.text);
            else if ('textBytes' in frame) ws.send(bytesOf(frame.textBytes), { binary: false });
            else ws.send(bytesOf(frame.binary), { binary: true });
          }
        })();
      });
    });
  }

  /** An entry's mismatch with what the spec says, or undefined. */
  async function replay(e: Entry): Promise<string | undefined> {
    if (e.kind === 'ws') {
      const got = await session(e);
      const want = e.expect;
      if (want.status !== undefined) {
        return got.status === want.status
          ? undefined
          : `upgrade answered ${JSON.stringify(got)}, expected status ${want.status}`;
      }
      if (got.status !== undefined) return `upgrade refused with ${got.status} ${got.code ?? ''}`;
      if (want.code !== undefined && got.code !== want.code)
        return `error frame ${got.code ?? '(none)'}, expected ${want.code} (close ${got.close})`;
      if (want.close !== undefined && got.close !== want.close)
        return `closed ${got.close}, expected ${want.close} (code ${got.code ?? '(none)'})`;
      return undefined;
    }
    const o = e.kind === 'raw' ? await sendRaw(e) : await send(e);
    const wrong = mismatch(o, e.expect);
    if (wrong || !e.expect.servedSafe || o.status !== 200) return wrong;
    // An accepted logo: what is served must be inert.
    const served = await send({
      id: `${e.id}/read`,
      note: '',
      kind: 'http',
      method: 'GET',
      path: '/v1/branding/logo',
      as: 'admin',
      expect: {},
    });
    if (served.status !== 200) return `accepted, but reading it back answered ${served.status}`;
    if (!served.contentType.startsWith('image/svg+xml')) return undefined;
    const unsafe = unsafeMarkers(served.body.toString('utf8'));
    return unsafe.length === 0 ? undefined : `served with ${unsafe.join(', ')}`;
  }

  it('holds at least 500 entries, each with a unique id and an expectation', function () {
    const entries = groups.flatMap((g) => g.entries);
    assert.ok(entries.length >= 500, `${entries.length} entries`);
    assert.equal(new Set(entries.map((e) => e.id)).size, entries.length);
    assert.deepEqual(groups.map((g) => g.name).sort(), [
      'collection-filters',
      'headers',
      'json-bodies',
      'jsonrpc-frames',
      'logo-files',
      'paths',
      'remote-mcp-addresses',
      'stt-websocket-frames',
    ]);
  });

  for (const group of groups) {
    it(`${group.name}: ${group.entries.length} entries, none 5xx or accepted where the spec refuses, each with its code; nothing crashed or polluted`, async function () {
      // Logo uploads are read back one by one; socket sessions count against per-user caps.
      const sequential = group.name === 'logo-files' || group.name === 'stt-websocket-frames';
      const failures: string[] = [];
      await pool(group.entries, sequential ? 1 : 6, async (e) => {
        try {
          const wrong = await replay(e);
          if (wrong) failures.push(`${e.id} (${e.note}): ${wrong}`);
        } catch (err) {
          failures.push(`${e.id} (${e.note}): ${(err as Error).message}`);
        }
      });
      assert.deepEqual(
        failures,
        [],
        `${failures.length} of ${group.entries.length} entries:\n${failures.join('\n')}`,
      );
      await assertStillNormal();
    });
  }

  /** The processes answer, a normal request works, and nothing reached Object.prototype. */
  async function assertStillNormal(): Promise<void> {
    for (const base of [api.url, stack.api.url, stack.gateway.url]) {
      const r = await fetch(`${base}/readyz`);
      assert.equal(r.status, 200, `${base}/readyz answered ${r.status}`);
    }
    const me = await send({
      id: 'me',
      note: '',
      kind: 'http',
      method: 'GET',
      path: '/v1/me',
      as: 'apikey',
      expect: {},
    });
    assert.equal(me.status, 200, me.body.toString());
    const keys = await send({
      id: 'keys',
      note: '',
      kind: 'http',
      method: 'GET',
      path: '/v1/api-keys',
      as: 'admin',
      expect: {},
    });
    assert.equal(keys.status, 200, keys.body.toString());
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), CLEAN_PROTOTYPE);
    const probe = {} as Record<string, unknown>;
    assert.deepEqual(
      [probe.polluted, probe.isPlatformAdmin, probe.a],
      [undefined, undefined, undefined],
    );
  }
});

/** Object.prototype's own names before any request. */
const CLEAN_PROTOTYPE = Object.getOwnPropertyNames(Object.prototype).sort();
