import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
import { isRefusal, refusalText } from './refusal.js';

describe('refusalText', () => {
  it("names the status, the reason and the apiserver's words, bounded", () => {
    const body = { kind: 'Status', code: 403, reason: 'Forbidden', message: 'q'.repeat(400) };
    assert.equal(
      refusalText(new ApiException(403, 'Forbidden', body, {})),
      `HTTP 403 (Forbidden): ${'q'.repeat(300)}`,
    );
  });

  it('says what there is: a status without words, or no answer at all', () => {
    assert.equal(refusalText(new ApiException(422, 'Unprocessable', '', {})), 'HTTP 422');
    assert.equal(refusalText(new TypeError('fetch failed')), 'no answer');
  });
});

describe('isRefusal', () => {
  it('is a 403, 422 or 400 from the apiserver, nothing else', () => {
    const answer = (code: number) => new ApiException(code, 'x', '', {});
    assert.deepEqual(
      [400, 403, 422, 404, 409, 500].map((code) => isRefusal(answer(code))),
      [true, true, true, false, false, false],
    );
    assert.equal(isRefusal(new TypeError('fetch failed')), false);
  });
});
