import assert from 'node:assert/strict';
import type { Request, Response } from 'express';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { rerankBodyErrors } from './rerank-routes.js';

describe('rerankBodyErrors', function () {
  const passed = (err: unknown): unknown => {
    let out: unknown;
    rerankBodyErrors(err, {} as Request, {} as Response, (e?: unknown) => {
      out = e;
    });
    return out;
  };

  it('answers a body that is not JSON 400 rerank_bad_request (spec: Errors, reranker)', function () {
    const out = passed(
      Object.assign(new SyntaxError('Unexpected token'), { type: 'entity.parse.failed' }),
    );
    assert.ok(out instanceof ApiError);
    assert.deepEqual([out.code, out.status], ['rerank_bad_request', 400]);
    assert.match(out.message, /not valid JSON/);
  });

  it('answers bytes that are not UTF-8 400 rerank_bad_request', function () {
    const out = passed(new ValidationFailed([{ field: '', message: 'body is not valid UTF-8' }]));
    assert.ok(out instanceof ApiError);
    assert.equal(out.code, 'rerank_bad_request');
  });

  it('keeps the size limit’s 413', function () {
    const out = passed(Object.assign(new Error('too large'), { type: 'entity.too.large' }));
    assert.ok(out instanceof ApiError);
    assert.equal(out.code, 'request_too_large');
  });
});
