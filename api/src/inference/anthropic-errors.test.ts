import assert from 'node:assert/strict';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { VendorError, vendorErrorBody, vendorErrorOf } from './anthropic-errors.js';
import { BackendFailure } from './backend-client.js';
import { UnsupportedRequest } from './translate-request.js';

describe('vendorErrorOf: every failure in the vendor’s shape and status', function () {
  const cases: [string, unknown, string, number][] = [
    ['no credentials', new ApiError('authentication_required', 'm'), 'authentication_error', 401],
    ['a bad API key', new ApiError('invalid_api_key', 'm'), 'authentication_error', 401],
    ['a missing permission', new ApiError('permission_denied', 'm'), 'permission_error', 403],
    [
      'no organization chosen',
      new ApiError('organization_required', 'm'),
      'invalid_request_error',
      400,
    ],
    ['a body too large', new ApiError('request_too_large', 'm'), 'request_too_large', 413],
    [
      'the identity provider down',
      new ApiError('identity_provider_unavailable', 'm'),
      'overloaded_error',
      529,
    ],
    [
      'a validation failure',
      new ValidationFailed([{ field: 'max_tokens', message: 'is required' }]),
      'invalid_request_error',
      400,
    ],
    ['an unsupported tool', new UnsupportedRequest('tools.0'), 'invalid_request_error', 400],
    ['a rate-limited backend', new BackendFailure(429, 'm'), 'rate_limit_error', 429],
    ['an overloaded backend', new BackendFailure(503, 'm'), 'overloaded_error', 529],
    ['an unreachable backend', new BackendFailure(undefined, 'm'), 'overloaded_error', 529],
    [
      'a backend refusing the request',
      new BackendFailure(400, 'too long'),
      'invalid_request_error',
      400,
    ],
    ['a backend refusing our key', new BackendFailure(401, 'm'), 'api_error', 500],
    ['a backend failing', new BackendFailure(500, 'm'), 'api_error', 500],
    ['a timeout', new BackendFailure(undefined, 'm', true), 'api_error', 500],
  ];
  for (const [what, err, type, status] of cases) {
    it(`answers ${status} ${type} for ${what}`, function () {
      const e = vendorErrorOf(err);
      assert.ok(e instanceof VendorError);
      assert.deepEqual([e.type, e.status], [type, status]);
      assert.deepEqual(Object.keys(vendorErrorBody(e)), ['type', 'error']);
    });
  }

  it('names the fields of a validation failure in the message', function () {
    const e = vendorErrorOf(
      new ValidationFailed([{ field: 'max_tokens', message: 'is required' }]),
    );
    assert.equal(e?.message, 'max_tokens: is required');
  });

  it('leaves an unknown error to the boundary (logged, answered 500 api_error without detail)', function () {
    assert.equal(vendorErrorOf(new Error('secret detail')), undefined);
  });
});
