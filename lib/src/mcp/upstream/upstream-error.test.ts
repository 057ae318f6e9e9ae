import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { DialRefusedError, RedirectRefusedError } from './pinned-fetch.js';
import {
  classifyUpstreamFailure,
  type FailureContext,
  redactError,
  UpstreamError,
  type UpstreamErrorReason,
} from './upstream-error.js';

const CREDENTIAL = 's3cr3t-"token"';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function fetchFailed(cause: Error): TypeError {
  return new TypeError('fetch failed', { cause });
}

const cases: {
  name: string;
  error: unknown;
  context?: Partial<FailureContext>;
  reason: UpstreamErrorReason;
  message: string;
}[] = [
  {
    name: 'the upstream answers 401',
    error: new StreamableHTTPError(401, 'Error POSTing to endpoint: {"error":"invalid_token"}'),
    reason: 'credential_rejected',
    message: 'upstream refused the credential (HTTP 401)',
  },
  {
    name: 'the upstream answers 403',
    error: new StreamableHTTPError(403, 'Error POSTing to endpoint: forbidden'),
    reason: 'credential_rejected',
    message: 'upstream refused the credential (HTTP 403)',
  },
  {
    name: 'the SDK throws UnauthorizedError',
    error: new UnauthorizedError(),
    reason: 'credential_rejected',
    message: 'upstream refused the credential',
  },
  {
    name: 'the upstream answers 404',
    error: new StreamableHTTPError(404, 'Error POSTing to endpoint: <html>Not Found</html>'),
    reason: 'unreachable',
    message: 'upstream answered HTTP 404',
  },
  {
    name: 'the upstream answers 502',
    error: new StreamableHTTPError(502, 'Error POSTing to endpoint: bad gateway'),
    reason: 'unreachable',
    message: 'upstream answered HTTP 502',
  },
  {
    name: 'the upstream answers with an HTML page',
    error: new StreamableHTTPError(-1, 'Unexpected content type: text/html'),
    reason: 'unreachable',
    message: 'upstream answered with a content type that is not MCP',
  },
  {
    name: 'the connection is refused',
    error: fetchFailed(withCode('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED')),
    reason: 'unreachable',
    message: 'upstream connection refused',
  },
  {
    name: 'the connection is reset',
    error: fetchFailed(withCode('read ECONNRESET', 'ECONNRESET')),
    reason: 'unreachable',
    message: 'upstream connection reset',
  },
  {
    name: 'the host name does not resolve',
    error: fetchFailed(withCode('getaddrinfo ENOTFOUND mcp.invalid', 'ENOTFOUND')),
    reason: 'unreachable',
    message: 'upstream host could not be resolved',
  },
  {
    name: 'the address is refused at dial, naming the rule',
    error: fetchFailed(
      new DialRefusedError(
        'host_not_public',
        'address host internal.example must resolve only to public addresses (rule: host_not_public)',
        'private',
      ),
    ),
    reason: 'unreachable',
    message:
      'upstream refused at dial: address host internal.example must resolve only to public addresses (rule: host_not_public)',
  },
  {
    name: 'the upstream answers with a redirect',
    error: new RedirectRefusedError(302),
    reason: 'unreachable',
    message: 'upstream answered with a redirect (HTTP 302), which is not followed',
  },
  {
    name: 'the certificate is self-signed',
    error: fetchFailed(withCode('self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT')),
    reason: 'unreachable',
    message: 'upstream TLS handshake failed',
  },
  {
    name: 'the certificate is for another name',
    error: fetchFailed(withCode('Hostname/IP does not match', 'ERR_TLS_CERT_ALTNAME_INVALID')),
    reason: 'unreachable',
    message: 'upstream TLS handshake failed',
  },
  {
    name: 'the upstream answers initialize with a JSON-RPC error',
    error: new McpError(ErrorCode.InvalidRequest, 'unsupported'),
    reason: 'unreachable',
    message: 'upstream answered with JSON-RPC error -32600',
  },
  {
    name: "the SDK's request timeout fires",
    error: new McpError(ErrorCode.RequestTimeout, 'Request timed out'),
    reason: 'unreachable',
    message: 'upstream did not answer in time',
  },
  {
    name: 'the body is not JSON',
    error: new SyntaxError('Unexpected token < in JSON at position 0'),
    reason: 'unreachable',
    message: 'upstream answered with something that is not MCP',
  },
  {
    name: 'the deadline passes, naming the deadline',
    error: new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    context: { timedOut: true, timeoutMs: 500 },
    reason: 'unreachable',
    message: 'upstream did not answer within 500 ms',
  },
  {
    name: 'a 401 arrives after the deadline passed',
    error: new StreamableHTTPError(401, 'late'),
    context: { timedOut: true, timeoutMs: 500 },
    reason: 'unreachable',
    message: 'upstream did not answer within 500 ms',
  },
  {
    name: 'the caller cancels',
    error: new DOMException('This operation was aborted', 'AbortError'),
    context: { cancelled: true },
    reason: 'unreachable',
    message: 'upstream call was cancelled',
  },
  {
    name: 'anything else goes wrong',
    error: new Error('something odd'),
    reason: 'unreachable',
    message: 'upstream did not complete an MCP handshake',
  },
];

describe('classifyUpstreamFailure', () => {
  for (const c of cases) {
    it(`answers ${c.reason} when ${c.name}`, () => {
      const result = classifyUpstreamFailure(c.error, { credential: CREDENTIAL, ...c.context });
      assert.ok(result instanceof UpstreamError);
      assert.equal(result.reason, c.reason);
      assert.equal(result.message, c.message);
      assert.ok(result.cause instanceof Error);
    });
  }

  it('returns an UpstreamError it is given unchanged', () => {
    const original = new UpstreamError('unreachable', 'upstream connection refused');
    assert.equal(classifyUpstreamFailure(original, { credential: CREDENTIAL }), original);
  });

  it('keeps the status on the cause but never the credential the upstream echoed back', () => {
    const echoed = new StreamableHTTPError(
      401,
      `Error POSTing to endpoint: {"received":"Bearer ${JSON.stringify(CREDENTIAL).slice(1, -1)}","raw":"${CREDENTIAL}","url":"?t=${encodeURIComponent(CREDENTIAL)}"}`,
    );
    const result = classifyUpstreamFailure(echoed, { credential: CREDENTIAL });
    assert.equal(result.reason, 'credential_rejected');
    const printed = inspect(result, { depth: 10 });
    assert.ok(!printed.includes('s3cr3t'), printed);
    assert.ok(printed.includes('[redacted]'));
    assert.equal((result.cause as { code?: unknown }).code, 401);
  });
});

describe('redactError', () => {
  it('keeps the name and code of every cause and removes the secret from each', () => {
    const inner = Object.assign(new Error(`refused for ${CREDENTIAL}`), { code: 'ECONNREFUSED' });
    const outer = new TypeError(`fetch failed with ${CREDENTIAL}`, { cause: inner });
    const copy = redactError(outer, CREDENTIAL);
    assert.equal(copy.name, 'TypeError');
    assert.equal(copy.message, 'fetch failed with [redacted]');
    assert.ok(copy.cause instanceof Error);
    assert.equal(copy.cause.message, 'refused for [redacted]');
    assert.equal((copy.cause as { code?: unknown }).code, 'ECONNREFUSED');
    assert.ok(!inspect(copy, { depth: 10 }).includes('s3cr3t'));
  });

  it('names an error by its class when its name is the generic one', () => {
    assert.equal(
      redactError(new StreamableHTTPError(500, 'x'), CREDENTIAL).name,
      'StreamableHTTPError',
    );
  });

  it('cuts a long message such as an HTML page', () => {
    const copy = redactError(new Error(`<html>${'x'.repeat(5000)}</html>`), CREDENTIAL);
    assert.ok(copy.message.length <= 501);
  });

  it('turns a thrown string into an Error without the secret', () => {
    const copy = redactError(`token ${CREDENTIAL} refused`, CREDENTIAL);
    assert.ok(copy instanceof Error);
    assert.equal(copy.message, 'token [redacted] refused');
  });
});
