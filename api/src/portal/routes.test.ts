import assert from 'node:assert/strict';
import type { Request, Response } from 'express';
import { ApiError } from '@aiplane/lib/errors';
import { staticMisses } from './routes.js';

describe('staticMisses', function () {
  const passed = (err: unknown): unknown => {
    let out: unknown;
    staticMisses(err, { path: '/%2fetc%2fpasswd' } as Request, {} as Response, (e?: unknown) => {
      out = e;
    });
    return out;
  };

  it('answers a bare ENOENT that send marked 404 as 404 route_not_found', function () {
    const enoent = Object.assign(new Error('ENOENT: no such file'), {
      code: 'ENOENT',
      status: 404,
      expose: false,
    });
    const out = passed(enoent);
    assert.ok(out instanceof ApiError);
    assert.deepEqual([out.code, out.status], ['route_not_found', 404]);
  });

  it('keeps every other error (a 403 for ..) as it is', function () {
    const forbidden = Object.assign(new Error('Forbidden'), { status: 403, expose: true });
    assert.equal(passed(forbidden), forbidden);
  });
});
