import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
import {
  classifyError,
  ConflictError,
  type ErrorClassification,
  httpStatusOf,
  isConflict,
  isNotFound,
  PermanentError,
} from './errors.js';

function apiException(code: number, reason?: string): ApiException<unknown> {
  const body = reason ? JSON.stringify({ kind: 'Status', code, reason }) : '';
  return new ApiException(code, 'Unsuccessful HTTP Request', body, {});
}

function fetchFailed(code: string): TypeError {
  const cause = Object.assign(new Error(`connect ${code}`), { code });
  return new TypeError('fetch failed', { cause });
}

describe('classifyError', () => {
  const cases: Array<{ name: string; error: unknown; expected: ErrorClassification }> = [
    {
      name: '409 Conflict from the apiserver',
      error: apiException(409, 'Conflict'),
      expected: { retryable: true, kind: 'conflict', status: 409, reason: 'Conflict' },
    },
    {
      name: '409 AlreadyExists',
      error: apiException(409, 'AlreadyExists'),
      expected: { retryable: true, kind: 'conflict', status: 409, reason: 'AlreadyExists' },
    },
    {
      name: 'a ConflictError',
      error: new ConflictError(),
      expected: { retryable: true, kind: 'conflict', status: 409 },
    },
    {
      name: '429 Too Many Requests',
      error: apiException(429),
      expected: { retryable: true, kind: 'throttled', status: 429 },
    },
    {
      name: '500 Internal Server Error',
      error: apiException(500, 'InternalError'),
      expected: { retryable: true, kind: 'server', status: 500, reason: 'InternalError' },
    },
    {
      name: '503 Service Unavailable',
      error: apiException(503),
      expected: { retryable: true, kind: 'server', status: 503 },
    },
    {
      name: '504 Gateway Timeout',
      error: apiException(504),
      expected: { retryable: true, kind: 'server', status: 504 },
    },
    {
      name: '404 Not Found',
      error: apiException(404, 'NotFound'),
      expected: { retryable: true, kind: 'not_found', status: 404, reason: 'NotFound' },
    },
    {
      name: '403 Forbidden',
      error: apiException(403),
      expected: { retryable: true, kind: 'forbidden', status: 403 },
    },
    {
      name: '400 Bad Request',
      error: apiException(400, 'BadRequest'),
      expected: { retryable: false, kind: 'invalid', status: 400, reason: 'BadRequest' },
    },
    {
      name: '422 Unprocessable Entity',
      error: apiException(422, 'Invalid'),
      expected: { retryable: false, kind: 'invalid', status: 422, reason: 'Invalid' },
    },
    {
      name: '415 Unsupported Media Type (wrong patch type)',
      error: apiException(415),
      expected: { retryable: false, kind: 'client', status: 415 },
    },
    {
      name: 'a watch error with statusCode 500',
      error: Object.assign(new Error('Internal Server Error'), { statusCode: 500 }),
      expected: { retryable: true, kind: 'server', status: 500 },
    },
    {
      name: 'connection refused',
      error: fetchFailed('ECONNREFUSED'),
      expected: { retryable: true, kind: 'network' },
    },
    {
      name: 'connection reset',
      error: fetchFailed('ECONNRESET'),
      expected: { retryable: true, kind: 'network' },
    },
    {
      name: 'an undici socket error',
      error: fetchFailed('UND_ERR_SOCKET'),
      expected: { retryable: true, kind: 'network' },
    },
    {
      name: 'a DNS failure',
      error: fetchFailed('EAI_AGAIN'),
      expected: { retryable: true, kind: 'network' },
    },
    {
      name: 'a request timeout',
      error: new DOMException('timed out', 'TimeoutError'),
      expected: { retryable: true, kind: 'timeout' },
    },
    {
      name: 'a PermanentError',
      error: new PermanentError('spec.slug is taken'),
      expected: { retryable: false, kind: 'permanent' },
    },
    {
      name: 'a PermanentError wrapping a 503',
      error: new PermanentError('give up', { cause: apiException(503) }),
      expected: { retryable: false, kind: 'permanent' },
    },
    {
      name: 'an unknown error',
      error: new Error('boom'),
      expected: { retryable: true, kind: 'unknown' },
    },
    { name: 'a thrown string', error: 'boom', expected: { retryable: true, kind: 'unknown' } },
  ];
  for (const { name, error, expected } of cases) {
    it(`classifies ${name} as ${expected.retryable ? 'retryable' : 'not retryable'} (${expected.kind})`, () => {
      assert.deepEqual(classifyError(error), expected);
    });
  }
});

describe('httpStatusOf', () => {
  it('reads the status through a cause chain', () => {
    const wrapped = new Error('status write failed', { cause: apiException(422) });
    assert.equal(httpStatusOf(wrapped), 422);
  });

  it('ignores string error codes and out-of-range numbers', () => {
    assert.equal(httpStatusOf(fetchFailed('ECONNREFUSED')), undefined);
    assert.equal(httpStatusOf({ code: 7 }), undefined);
  });

  it('tells conflicts and not-found apart', () => {
    assert.equal(isConflict(apiException(409)), true);
    assert.equal(isConflict(apiException(404)), false);
    assert.equal(isNotFound(apiException(404)), true);
  });
});
