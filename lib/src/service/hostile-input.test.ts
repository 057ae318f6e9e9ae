import assert from 'node:assert/strict';
import { ApiError, ValidationFailed } from '../errors/api-error.js';
import type { Request, Response } from 'express';
import { jsonTextRefusal, refuseNulInUrl } from './hostile-input.js';

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

describe('refuseNulInUrl', function () {
  const passed = (originalUrl: string): unknown => {
    let out: unknown = 'not called';
    refuseNulInUrl({ originalUrl } as Request, {} as Response, (e?: unknown) => {
      out = e;
    });
    return out;
  };

  it('lets a path and query without %00 on', function () {
    assert.equal(passed('/v1/files/abc?name=a%20b&x=%2500'), undefined);
  });

  for (const url of [
    '/v1/files/a%00b',
    '/v1/resource-profiles/..%00%2fetc',
    '/v1/api-keys?name=%00',
  ]) {
    it(`refuses ${url} with 400 bad_request`, function () {
      const out = passed(url);
      assert.ok(out instanceof ApiError);
      assert.deepEqual([out.code, out.status], ['bad_request', 400]);
    });
  }
});
