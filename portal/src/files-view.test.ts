import assert from 'node:assert/strict';
import { folderHref, scopeOf, sizeText } from './files-view';
import { FILE_STATUSES, inProgress, type FileNode } from './knowledge-types';
import { ENGLISH } from './strings';

describe('the Files page’s addresses, sizes and states', function () {
  it('reads the scope of the address, `all` when absent or unknown', function () {
    for (const [search, scope] of [
      ['', 'all'],
      ['scope=mine', 'mine'],
      ['?scope=shared_with_me', 'shared_with_me'],
      ['scope=all', 'all'],
      ['scope=theirs', 'all'],
      ['scope=MINE', 'all'],
    ] as const) {
      assert.equal(scopeOf(search), scope, search);
    }
  });

  it('addresses a folder in a scope, leaving out the default scope', function () {
    assert.equal(folderHref(null, 'all'), '/files');
    assert.equal(folderHref(null, 'mine'), '/files?scope=mine');
    assert.equal(folderHref('f1', 'all'), '/files/f1');
    assert.equal(folderHref('f1', 'shared_with_me'), '/files/f1?scope=shared_with_me');
    assert.equal(scopeOf(folderHref('f1', 'shared_with_me').split('?')[1] ?? ''), 'shared_with_me');
  });

  it('writes sizes in B, KB and MB, and nothing for a folder', function () {
    for (const [bytes, text] of [
      [null, ''],
      [0, '0 B'],
      [1023, '1023 B'],
      [1024, '1.0 KB'],
      [1536, '1.5 KB'],
      [5 * 1024 * 1024, '5.0 MB'],
    ] as const) {
      assert.equal(sizeText(bytes), text, String(bytes));
    }
  });

  it('names every processing state exactly as the API does, and refreshes only while one is on its way', function () {
    for (const status of FILE_STATUSES) {
      assert.equal(ENGLISH[`files.status.${status}`], status);
    }
    const file = (status: FileNode['status']) => ({ status }) as FileNode;
    assert.deepEqual(
      FILE_STATUSES.filter((s) => inProgress(file(s))),
      ['uploaded', 'processing'],
    );
    assert.equal(inProgress(file(null)), false, 'a folder');
  });
});
