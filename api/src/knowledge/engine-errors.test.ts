import assert from 'node:assert/strict';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { BackendFailure } from '../inference/backend-client.js';
import {
  engineApiError,
  ExtractionFailed,
  FileTooLarge,
  TooManyChunks,
  UnsupportedFileType,
} from './engine-errors.js';
import { LocalEmbedderError } from './local-embedder.js';
import { MalformedBackendAnswer } from './openai-embedder.js';
import { RerankBadRequest } from './reranker.js';

describe('engineApiError: the engines’ failures as the platform’s answers', function () {
  /** For each answer, the failures that get it: [what, error, context]. */
  const answers: Record<string, [string, unknown, 'embed' | 'rerank'][]> = {
    '400 rerank_bad_request': [
      ['a bad rerank request', new RerankBadRequest('documents must not be empty'), 'rerank'],
      ['a rerank backend’s 400', new BackendFailure(400, 'too many tokens'), 'rerank'],
      ['a rerank backend’s 422', new BackendFailure(422, 'bad'), 'rerank'],
    ],
    '503 model_backend_unavailable': [
      ['an unreachable backend', new BackendFailure(undefined, 'refused'), 'embed'],
      ['a timed-out backend', new BackendFailure(undefined, 'slow', true), 'rerank'],
      ['a rate-limited backend', new BackendFailure(429, 'slow down'), 'embed'],
      ['an overloaded backend', new BackendFailure(503, 'busy'), 'rerank'],
      ['a failing backend', new BackendFailure(500, 'boom'), 'embed'],
      ['a local model that cannot run', new LocalEmbedderError('worker exited'), 'embed'],
    ],
    '502 model_backend_error': [
      ['an embeddings backend’s 400', new BackendFailure(400, 'bad'), 'embed'],
      ['a backend refusing our key', new BackendFailure(401, 'bad key sk-123'), 'embed'],
      ['a backend answering nonsense', new MalformedBackendAnswer('no data'), 'embed'],
    ],
    '413 request_too_large': [['a file over the size limit', new FileTooLarge('big'), 'embed']],
  };
  for (const [answer, failures] of Object.entries(answers)) {
    const [status, code] = answer.split(' ');
    for (const [what, err, context] of failures) {
      it(`answers ${answer} for ${what}`, function () {
        const got = engineApiError(err, context);
        assert.ok(got instanceof ApiError);
        assert.equal(got.code, code);
        assert.equal(got.status, Number(status));
      });
    }
  }

  it('does not repeat what a backend said when it refused the platform’s credentials', function () {
    const got = engineApiError(new BackendFailure(401, 'key sk-123 is revoked'));
    assert.ok(got instanceof ApiError);
    assert.doesNotMatch(got.message, /sk-123/);
  });

  it('answers 422 naming file for an unsupported, unreadable or too long file', function () {
    for (const err of [
      new UnsupportedFileType('the content type "image/png" is not supported'),
      new ExtractionFailed('the PDF is password-protected'),
      new TooManyChunks('more than 5000 chunks'),
    ]) {
      const got = engineApiError(err);
      assert.ok(got instanceof ValidationFailed);
      assert.deepEqual(got.fields, [{ field: 'file', message: err.message }]);
    }
  });

  it('leaves anything else to the error boundary (500)', function () {
    assert.equal(engineApiError(new Error('bug')), undefined);
  });
});
