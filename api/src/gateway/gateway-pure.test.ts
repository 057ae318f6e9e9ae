import assert from 'node:assert/strict';
import { parseKeyring } from '../crypto/index.js';
import {
  batchNotProcessed,
  parseError,
  platformError,
  sessionNotFound,
  unknownTool,
} from './json-rpc.js';
import { SessionBinder } from './session-id.js';
import { filterJsonBody, sseToolFilter } from './tool-filter.js';

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

describe('tools/list filtering', () => {
  const allowed = (n: string) => n === 'echo';
  const list = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { tools: [{ name: 'echo' }, { name: 'add' }], nextCursor: 'p2' },
    });

  it('filters a JSON answer and keeps the cursor', () => {
    const out = JSON.parse(filterJsonBody(list(1), allowed)) as {
      result: { tools: { name: string }[]; nextCursor: string };
    };
    assert.deepEqual(
      out.result.tools.map((t) => t.name),
      ['echo'],
    );
    assert.equal(out.result.nextCursor, 'p2');
  });

  it('filters a tools result whatever request id it answers (id reuse, resumed streams)', () => {
    const out = JSON.parse(filterJsonBody(list(2), allowed)) as { result: { tools: unknown[] } };
    assert.equal(out.result.tools.length, 1);
  });

  it('leaves messages without a tools result byte for byte', () => {
    const other = '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}';
    assert.equal(filterJsonBody(other, allowed), other);
    assert.equal(filterJsonBody('not json', allowed), 'not json');
  });

  it('rewrites the matching event of a stream split across chunks and passes others byte for byte', async () => {
    const other = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n';
    const event = `event: message\nid: 5\ndata: ${list(1)}\n\n`;
    const whole = other + event;
    const out = await through(
      [whole.slice(0, 30), whole.slice(30, 90), whole.slice(90)],
      sseToolFilter(allowed),
    );
    assert.ok(out.startsWith(other));
    assert.match(out, /id: 5\ndata: .*"tools":\[\{"name":"echo"\}\]/);
    assert.doesNotMatch(out, /"add"/);
  });
});
