import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
import { refusalMessage } from './refusal-message.js';

const refusal = (body: unknown) => new ApiException(403, 'Forbidden', body, {});

describe('refusalMessage', () => {
  it("answers the message of the apiserver's Status body", () => {
    const err = refusal({
      kind: 'Status',
      code: 403,
      reason: 'Forbidden',
      message: 'pods "x" is forbidden: exceeded quota',
    });
    assert.equal(refusalMessage(err), 'pods "x" is forbidden: exceeded quota');
  });

  it('cuts the message to 500 characters, or to the length asked for', () => {
    const err = refusal({ message: 'm'.repeat(600) });
    assert.equal(refusalMessage(err), 'm'.repeat(500));
    assert.equal(refusalMessage(err, 300), 'm'.repeat(300));
  });

  it('answers undefined when there is no message to quote', () => {
    for (const err of [
      refusal(''),
      refusal('{"message":"a body left as text"}'),
      refusal({ reason: 'Forbidden' }),
      refusal({ message: 42 }),
      new TypeError('fetch failed'),
      { body: null },
      null,
      undefined,
      'refused',
    ]) {
      assert.equal(refusalMessage(err), undefined, JSON.stringify(err));
    }
  });
});
