import assert from 'node:assert/strict';
import { parseKeyring } from '@aiplane/lib/crypto';
import {
  batchNotProcessed,
  parseError,
  platformError,
  sessionNotFound,
  unknownTool,
} from './json-rpc.js';
import { SessionBinder } from './session-id.js';
import { standardHeaderMismatch } from './standard-headers.js';
import { filterJsonBody, mayListTools } from './tool-filter.js';
import { readCapped, sseRewriter, type StreamOutcome } from './upstream-body.js';

const keyring = parseKeyring(`k1:${Buffer.alloc(32, 7).toString('base64')}`);

async function through(
  chunks: string[],
  t: TransformStream<Uint8Array, Uint8Array>,
): Promise<string> {
  const enc = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
  let out = '';
  const dec = new TextDecoder();
  for await (const part of source.pipeThrough(t) as unknown as AsyncIterable<Uint8Array>) {
    out += dec.decode(part, { stream: true });
  }
  return out;
}

describe('gateway session ids', () => {
  const binder = new SessionBinder(keyring);
  it('opens an id for the user and server it was issued to', () => {
    const id = binder.bind('upstream-123', 'user-a', 'server-1');
    assert.equal(binder.open(id, 'user-a', 'server-1'), 'upstream-123');
  });
  it('refuses it for another user, another server, or a forged mac', () => {
    const id = binder.bind('upstream-123', 'user-a', 'server-1');
    assert.equal(binder.open(id, 'user-b', 'server-1'), undefined);
    assert.equal(binder.open(id, 'user-a', 'server-2'), undefined);
    assert.equal(binder.open('upstream-123.forged', 'user-a', 'server-1'), undefined);
    assert.equal(binder.open('upstream-123', 'user-a', 'server-1'), undefined);
  });
  it('answers the same from its remembered macs, a few of them, as computed afresh', () => {
    const small = new SessionBinder(keyring, 2);
    const long = 'l'.repeat(600);
    const ids = ['a', 'b', 'c', long].map((s) => small.bind(s, 'u', 'x'));
    for (const [i, s] of ['a', 'b', 'c', long].entries()) {
      assert.equal(small.open(ids[i] as string, 'u', 'x'), s);
      assert.equal(small.open(ids[i] as string, 'v', 'x'), undefined);
      assert.equal(binder.bind(s, 'u', 'x'), ids[i]);
    }
  });
  it('gives every replica with the same keyring the same answer', () => {
    const id = binder.bind('s', 'u', 'x');
    assert.equal(new SessionBinder(keyring).open(id, 'u', 'x'), 's');
  });
});

describe('gateway JSON-RPC bodies', () => {
  it('puts the platform code at error.data.code with the spec’s JSON-RPC code', () => {
    assert.deepEqual(JSON.parse(platformError(4, 'mcp_credential_expired', 'renew')), {
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32005, message: 'renew', data: { code: 'mcp_credential_expired' } },
    });
  });
  it('answers an unknown tool without data', () => {
    assert.equal(
      unknownTool('a', 'x'),
      '{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"Unknown tool: x"}}',
    );
  });
  it('answers a session id not issued to the user as JSON-RPC -32001 Session not found', () => {
    assert.equal(
      sessionNotFound(2),
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Session not found"}}',
    );
    assert.equal(
      sessionNotFound(null),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}',
    );
  });
  it('answers an unreadable body with -32700 Parse error and a null id', () => {
    assert.equal(
      parseError(),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    );
  });
  it('answers the other requests of a batch with a refused call with -32600', () => {
    assert.equal(
      batchNotProcessed(10),
      '{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"Invalid Request: the batch calls an unknown tool"}}',
    );
  });
  it('serializes the platform refusal with data after code and message', () => {
    assert.equal(
      platformError(null, 'request_too_large', 'too big'),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"too big","data":{"code":"request_too_large"}}}',
    );
  });
});

/** The allowlist of the filtering tests, and a listing offering one allowed and one hidden tool. */
const allowed = (n: string) => n === 'echo';
const list = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { tools: [{ name: 'echo' }, { name: 'add' }], nextCursor: 'p2' },
  });

describe('tools/list filtering', () => {
  it('filters a JSON answer and keeps the cursor', () => {
    const out = JSON.parse(filterJsonBody(list(1), allowed) ?? '') as {
      result: { tools: { name: string }[]; nextCursor: string };
    };
    assert.deepEqual(
      out.result.tools.map((t) => t.name),
      ['echo'],
    );
    assert.equal(out.result.nextCursor, 'p2');
  });

  it('filters a tools result whatever request id it answers (id reuse, resumed streams)', () => {
    const out = JSON.parse(filterJsonBody(list(2), allowed) ?? '') as {
      result: { tools: unknown[] };
    };
    assert.equal(out.result.tools.length, 1);
  });

  it('leaves messages without a tools result byte for byte', () => {
    const other = '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}';
    assert.equal(filterJsonBody(other, allowed), other);
  });

  it('answers nothing for a body it cannot parse, a listing behind a byte-order mark included (fails closed)', () => {
    assert.equal(filterJsonBody('not json', allowed), undefined);
    assert.equal(filterJsonBody(`\uFEFF${list(1)}`, allowed), undefined);
  });

  it('passes a body that cannot list tools as it is, and re-writes one that may (duplicate keys, escapes)', () => {
    // Spaced and with duplicate keys: no parser can find a tools member in it, so it passes.
    const plain = '{ "jsonrpc": "2.0", "id": 4, "result": {"content": []}, "result": {} }';
    assert.equal(filterJsonBody(plain, allowed), plain);
    // A listing only a first-key-wins parser would see: re-written as the gateway read it.
    const hidden = `{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"add"}]},"result":{}}`;
    assert.equal(filterJsonBody(hidden, allowed), '{"jsonrpc":"2.0","id":5,"result":{}}');
    const escaped = `{"jsonrpc":"2.0","id":6,"result":{"\\u0074ools":[{"name":"add"}]}}`;
    assert.deepEqual(JSON.parse(filterJsonBody(escaped, allowed) ?? ''), {
      jsonrpc: '2.0',
      id: 6,
      result: { tools: [] },
    });
    assert.equal(mayListTools('{"result":{"content":[{"text":"hi"}]}}'), false);
    assert.equal(mayListTools('{"a":"\\u0041"}'), true);
  });

  it('leaves a batch without a tools result as it was, and filters one with it', () => {
    const other = '[{"jsonrpc":"2.0","id":3,"result":{"content":[]}}]';
    assert.equal(filterJsonBody(other, allowed), other);
    const out = JSON.parse(filterJsonBody(`[${list(1)},${list(2)}]`, allowed) ?? '') as {
      result: { tools: { name: string }[] };
    }[];
    assert.deepEqual(
      out.map((m) => m.result.tools.map((t) => t.name)),
      [['echo'], ['echo']],
    );
  });
});

describe('event stream re-writing (eventsource-parser)', () => {
  const rewriter = (opts: { maxBufferedChars?: number; outcome?: StreamOutcome } = {}) =>
    sseRewriter({
      allowed,
      maxBufferedChars: opts.maxBufferedChars ?? 1024 * 1024,
      outcome: opts.outcome ?? {},
      giveUp: () => undefined,
      failureEvent: (failure) => `data: ${JSON.stringify({ failure })}\n\n`,
    });

  it('rewrites the matching event of a stream split across chunks and passes others unchanged', async () => {
    const other = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n';
    const event = `event: message\nid: 5\ndata: ${list(1)}\n\n`;
    const whole = other + event;
    const out = await through(
      [whole.slice(0, 30), whole.slice(30, 90), whole.slice(90)],
      rewriter(),
    );
    assert.ok(out.startsWith(other));
    assert.match(out, /id: 5\ndata: .*"tools":\[\{"name":"echo"\}\]/);
    assert.doesNotMatch(out, /"add"/);
  });

  for (const [label, eol] of [
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ] as const) {
    it(`parses ${label}-delimited events and filters their tools listings`, async () => {
      const stream = `id: 1${eol}data: ${list(1)}${eol}${eol}: keep-alive${eol}data: {"jsonrpc":"2.0","method":"x"}${eol}${eol}`;
      const out = await through([stream.slice(0, 17), stream.slice(17)], rewriter());
      assert.doesNotMatch(out, /"add"/);
      assert.equal(
        out,
        `id: 1\ndata: ${JSON.stringify(JSON.parse(list(1).replace(',{"name":"add"}', '')))}\n\n` +
          ': keep-alive\n\ndata: {"jsonrpc":"2.0","method":"x"}\n\n',
      );
    });
  }

  it('filters a batched (JSON-RPC array) tools listing in one event', async () => {
    const out = await through([`data: [${list(1)},${list(2)}]\n\n`], rewriter());
    assert.doesNotMatch(out, /"add"/);
    assert.equal((out.match(/"echo"/g) ?? []).length, 2);
  });

  it('writes a data field of several lines as several data lines, and passes retry', async () => {
    const out = await through(['retry: 500\nevent: e\ndata: a\ndata: b\n\n'], rewriter());
    assert.equal(out, 'retry: 500\n\nevent: e\ndata: a\ndata: b\n\n');
  });

  it('drops an unterminated last event (SSE discards it at the end of the stream)', async () => {
    assert.equal(await through(['data: a\n\ndata: b'], rewriter()), 'data: a\n\n');
  });

  it('ends the stream with the failure event when one pending event exceeds the cap', async () => {
    const outcome: StreamOutcome = {};
    const big = `data: ${'x'.repeat(5000)}`;
    const out = await through(
      ['data: small\n\n', big.slice(0, 2500), big.slice(2500), '\n\ndata: after\n\n'],
      rewriter({ maxBufferedChars: 4096, outcome }),
    );
    assert.equal(outcome.failure, 'too_large');
    assert.equal(out, 'data: small\n\ndata: {"failure":"too_large"}\n\n');
  });
});

describe('capped reading of a whole body', () => {
  const body = (chunks: number[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const n of chunks) c.enqueue(new Uint8Array(n));
        c.close();
      },
    });

  it('reads a body up to the cap and refuses one beyond it', async () => {
    assert.equal((await readCapped(body([10, 20]), 30))?.length, 30);
    assert.equal(await readCapped(body([10, 20, 1]), 30), undefined);
  });
});

describe('Mcp-Method and Mcp-Name against the body (revision 2026-07-28)', () => {
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } };
  const headers = (h: Record<string, string>) => (n: string) => h[n];
  const b64 = (v: string) => `=?base64?${Buffer.from(v).toString('base64')}?=`;
  const cases: [string, unknown[], Record<string, string>, boolean][] = [
    ['no header', [call], {}, true],
    ['both naming the body', [call], { 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, true],
    ['a Base64 name naming the body', [call], { 'mcp-name': b64('echo') }, true],
    ['another method', [call], { 'mcp-method': 'tools/list' }, false],
    ['another tool', [call], { 'mcp-method': 'tools/call', 'mcp-name': 'add' }, false],
    ['another tool in Base64', [call], { 'mcp-name': b64('add') }, false],
    ['invalid Base64', [call], { 'mcp-name': '=?base64?***?=' }, false],
    [
      'a resource uri',
      [{ ...call, method: 'resources/read', params: { uri: 'a://b' } }],
      { 'mcp-name': 'a://c' },
      false,
    ],
    [
      'a method without a name source',
      [{ ...call, method: 'tools/list' }],
      { 'mcp-method': 'tools/list', 'mcp-name': 'x' },
      true,
    ],
    ['a batch', [call, call], { 'mcp-method': 'tools/call' }, false],
  ];
  for (const [label, messages, h, agree] of cases) {
    it(`${agree ? 'accepts' : 'refuses'} ${label}`, () => {
      const why = standardHeaderMismatch(messages as never, messages.length > 1, headers(h));
      assert.equal(why === undefined, agree, why);
    });
  }
});
