import assert from 'node:assert/strict';
import type { ApiError } from '@aiplane/lib/errors';
import { BlobStoreFailure } from './files-blob-store.js';
import { s3Failure } from './files-s3-blob-store.js';
import { engineApiError } from './engine-errors.js';

/** An error as the AWS SDK raises it: a name, maybe a network code, the HTTP status if any. */
function sdkError(
  name: string,
  status?: number,
  code?: string,
  message = 'the server said: SECRET-ish detail',
) {
  return Object.assign(new Error(message), {
    name,
    ...(code ? { code } : {}),
    $metadata: status === undefined ? {} : { httpStatusCode: status },
  });
}

describe('S3 failures as the platform answers them', function () {
  const cases: [string, unknown, boolean, string][] = [
    ['a refused connection', sdkError('Error', undefined, 'ECONNREFUSED'), true, 'ECONNREFUSED'],
    ['a reset connection', sdkError('Error', undefined, 'ECONNRESET'), true, 'ECONNRESET'],
    ['a timeout', sdkError('TimeoutError'), true, 'TimeoutError'],
    ['a 500', sdkError('InternalError', 500), true, 'InternalError'],
    ['a 503 slow down', sdkError('SlowDown', 503), true, 'SlowDown'],
    ['a 429', sdkError('TooManyRequests', 429), true, 'TooManyRequests'],
    ['a 400 request timeout', sdkError('RequestTimeout', 400), true, 'RequestTimeout'],
    ['wrong keys', sdkError('InvalidAccessKeyId', 403), false, 'InvalidAccessKeyId'],
    ['a wrong signature', sdkError('SignatureDoesNotMatch', 403), false, 'SignatureDoesNotMatch'],
    ['a missing bucket', sdkError('NoSuchBucket', 404), false, 'NoSuchBucket'],
    ['something that is no SDK error', 'boom', true, 'Error'],
  ];
  for (const [what, err, unavailable, named] of cases) {
    it(`${what} is ${unavailable ? '503 file_store_unavailable' : '502 file_store_error'}, naming ${named} and not quoting the message`, function () {
      const failure = s3Failure('PutObject', err);
      assert.ok(failure instanceof BlobStoreFailure);
      assert.equal(failure.unavailable, unavailable);
      assert.match(failure.message, new RegExp(`PutObject: ${named}`));
      assert.doesNotMatch(failure.message, /SECRET/);
      const answer = engineApiError(failure) as ApiError;
      assert.equal(answer?.code, unavailable ? 'file_store_unavailable' : 'file_store_error');
      assert.equal(answer?.status, unavailable ? 503 : 502);
    });
  }
});
