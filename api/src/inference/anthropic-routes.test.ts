import assert from 'node:assert/strict';
import { page } from './anthropic-routes.js';

const all = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
const ids = (p: ReturnType<typeof page>) => p.data.map((x) => x.id);

describe('page: the vendor’s list pagination', function () {
  it('answers the first 20 by default with first_id, last_id and has_more', function () {
    const p = page(all, {});
    assert.deepEqual(
      [ids(p), p.has_more, p.first_id, p.last_id],
      [['a', 'b', 'c', 'd', 'e'], false, 'a', 'e'],
    );
  });

  it('pages forward with limit and after_id', function () {
    const first = page(all, { limit: '2' });
    assert.deepEqual([ids(first), first.has_more], [['a', 'b'], true]);
    const second = page(all, { limit: '2', after_id: 'b' });
    assert.deepEqual([ids(second), second.has_more], [['c', 'd'], true]);
    const last = page(all, { limit: '2', after_id: 'd' });
    assert.deepEqual([ids(last), last.has_more], [['e'], false]);
  });

  it('pages backward with before_id', function () {
    const p = page(all, { limit: '2', before_id: 'd' });
    assert.deepEqual([ids(p), p.has_more], [['b', 'c'], true]);
    const start = page(all, { limit: '2', before_id: 'b' });
    assert.deepEqual([ids(start), start.has_more], [['a'], false]);
  });

  it('answers an empty page (null ids) after an unknown id, and refuses a limit out of 1–1000', function () {
    const p = page(all, { after_id: 'zzz' });
    assert.deepEqual([ids(p), p.first_id, p.last_id, p.has_more], [[], null, null, false]);
    for (const limit of ['0', '1001']) {
      assert.throws(() => page(all, { limit }), /limit/);
    }
  });
});
