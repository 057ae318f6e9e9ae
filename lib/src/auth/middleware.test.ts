import assert from 'node:assert/strict';
import { repeatedCredentialHeader } from './middleware.js';

describe('repeatedCredentialHeader', function () {
  const cases: [string, string[], string | undefined][] = [
    ['one of each', ['Authorization', 'Bearer a', 'X-Api-Key', 'k', 'Accept', '*/*'], undefined],
    ['none', ['Accept', '*/*', 'Accept', 'text/html'], undefined],
    [
      'two Authorization headers',
      ['Authorization', 'Bearer a', 'authorization', 'Bearer b'],
      'authorization',
    ],
    ['two equal X-Api-Keys', ['X-Api-Key', 'k', 'X-API-KEY', 'k'], 'x-api-key'],
  ];
  for (const [what, raw, expected] of cases) {
    it(`answers ${String(expected)} for ${what}`, function () {
      assert.equal(repeatedCredentialHeader(raw), expected);
    });
  }
});
