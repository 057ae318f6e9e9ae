import assert from 'node:assert/strict';
import { rangeHeader, redactUrl, resumeDecision } from './download-source.js';

describe('download sources', function () {
  describe('redactUrl', function () {
    for (const [url, shown] of [
      [
        'https://hf.example.com/m/resolve/main/model.safetensors',
        'https://hf.example.com/m/resolve/main/model.safetensors',
      ],
      [
        'https://s3.example.com/b/k?X-Amz-Signature=secret&X-Amz-Credential=c',
        'https://s3.example.com/b/k?…',
      ],
      ['http://127.0.0.1:8123/files/a.bin?token=t0ps3cret', 'http://127.0.0.1:8123/files/a.bin?…'],
      ['https://h.example.com/a#frag', 'https://h.example.com/a'],
      ['not a url ?token=x', '(unparseable address)'],
    ] as const) {
      it(`shows ${url} as ${shown}`, function () {
        assert.equal(redactUrl(url), shown);
        assert.ok(!redactUrl(url).includes('secret'));
      });
    }
  });

  describe('rangeHeader', function () {
    it('asks for the rest of a partial file, and for nothing on an empty one', function () {
      assert.equal(rangeHeader(0), undefined);
      assert.equal(rangeHeader(4096), 'bytes=4096-');
    });
  });

  describe('resumeDecision', function () {
    const cases: [
      string,
      number,
      Parameters<typeof resumeDecision>[1],
      ReturnType<typeof resumeDecision>,
    ][] = [
      [
        'starts an empty file on 200',
        0,
        { status: 200, contentRange: null, contentLength: '10' },
        { action: 'restart', total: 10 },
      ],
      [
        'restarts when the server ignores Range (200)',
        500,
        { status: 200, contentRange: null, contentLength: '1000' },
        { action: 'restart', total: 1000 },
      ],
      [
        'restarts with an unknown total when no length is sent',
        0,
        { status: 200, contentRange: null, contentLength: null },
        { action: 'restart', total: null },
      ],
      [
        'appends on 206 from the partial file’s end',
        500,
        { status: 206, contentRange: 'bytes 500-999/1000', contentLength: '500' },
        { action: 'append', offset: 500, total: 1000 },
      ],
      [
        'appends with an unknown total (bytes N-M/*)',
        500,
        { status: 206, contentRange: 'bytes 500-999/*', contentLength: '500' },
        { action: 'append', offset: 500, total: null },
      ],
      [
        'discards on 206 from another offset',
        500,
        { status: 206, contentRange: 'bytes 0-999/1000', contentLength: '1000' },
        { action: 'discard', reason: 'the source answered another range than the one asked for' },
      ],
      [
        'discards on 206 without Content-Range',
        500,
        { status: 206, contentRange: null, contentLength: '500' },
        { action: 'discard', reason: 'the source answered another range than the one asked for' },
      ],
      [
        'is complete on 416 when the file has exactly the bytes on disk',
        1000,
        { status: 416, contentRange: 'bytes */1000', contentLength: null },
        { action: 'complete', total: 1000 },
      ],
      [
        'discards on 416 when the file is shorter than the partial one',
        1000,
        { status: 416, contentRange: 'bytes */900', contentLength: null },
        {
          action: 'discard',
          reason: 'the source refused the range of the partial file (HTTP 416)',
        },
      ],
      [
        'fails on 404',
        0,
        { status: 404, contentRange: null, contentLength: null },
        { action: 'fail', message: 'the source answered HTTP 404' },
      ],
      [
        'fails on 206 to a request without a range',
        0,
        { status: 206, contentRange: 'bytes 0-9/10', contentLength: '10' },
        { action: 'fail', message: 'the source answered HTTP 206' },
      ],
    ];
    for (const [name, onDisk, answer, expected] of cases) {
      it(name, function () {
        assert.deepEqual(resumeDecision(onDisk, answer), expected);
      });
    }
  });
});
