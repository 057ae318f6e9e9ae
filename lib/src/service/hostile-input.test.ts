import assert from 'node:assert/strict';
import { ApiError, ValidationFailed } from '../errors/api-error.js';
import { jsonTextRefusal } from './hostile-input.js';

describe('jsonTextRefusal', function () {
  const refusal = (body: string | Buffer, charset = 'utf-8') =>
    jsonTextRefusal(typeof body === 'string' ? Buffer.from(body) : body, charset);

  it('takes UTF-8 JSON, text with a backslash before u0000, and non-ASCII text', function () {
    for (const body of ['{"a":"b"}', '{"a":"\\\\u0000"}', '{"a":"žluťoučký kůň 🐎"}', '']) {
      assert.equal(refusal(body), undefined, body);
    }
  });

  it('refuses another charset with 415 unsupported_media_type', function () {
    const r = refusal('{}', 'utf-16le');
    assert.ok(r instanceof ApiError);
    assert.deepEqual([r.code, r.status], ['unsupported_media_type', 415]);
  });

  const invalid: [string, Buffer][] = [
    ['a 0xff byte', Buffer.from('{"a":"\xff"}', 'latin1')],
    ['an overlong slash', Buffer.from('{"a":"\xc0\xaf"}', 'latin1')],
    ['an encoded surrogate', Buffer.from('{"a":"\xed\xa0\x80"}', 'latin1')],
    ['a truncated sequence', Buffer.from('{"a":"\xe2\x82"}', 'latin1')],
  ];
  for (const [what, body] of invalid) {
    it(`refuses ${what} as a validation failure (422)`, function () {
      const r = refusal(body);
      assert.ok(r instanceof ValidationFailed);
      assert.match(r.message, /UTF-8/);
    });
  }

  for (const body of [
    '{"a":"\\u0000"}',
    '{"a":"x\\u0000y"}',
    '{"a":"\\\\\\u0000"}',
    '{"\\u0000":1}',
  ]) {
    it(`refuses a NUL escape in ${body} as a validation failure (422)`, function () {
      const r = refusal(body);
      assert.ok(r instanceof ValidationFailed);
      assert.match(r.message, /NUL/);
    });
  }
});
