import assert from 'node:assert/strict';
import { ValidationFailed } from '@aiplane/lib/errors';
import { nameProblem, pageOf, refuseFolderPath } from './files-schemas.js';
import { containsPattern } from './files-store.js';

/** The fields a ValidationFailed thrown by `fn` names. */
function refusedFields(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ValidationFailed, String(err));
    return err.fields.map((f) => f.field);
  }
  return assert.fail('not refused');
}

describe('file and folder names', function () {
  for (const name of [
    'a',
    'report.pdf',
    'Notes 2026 (final).md',
    'ümlaut ✓.txt',
    'x'.repeat(255),
    '.hidden',
  ]) {
    it(`accepts ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…` : name)}`, function () {
      assert.equal(nameProblem(name), undefined);
    });
  }
  for (const [name, why] of [
    ['', '1 to 255'],
    ['x'.repeat(256), '1 to 255'],
    [' lead', 'white space'],
    ['trail ', 'white space'],
    ['.', '. or ..'],
    ['..', '. or ..'],
    ['a/b', 'slash'],
    ['a\\b', 'slash'],
    ['nul\u0000', 'control'],
    ['line\nbreak', 'control'],
  ] as const) {
    it(`refuses ${JSON.stringify(name.slice(0, 12))} (${why})`, function () {
      assert.match(nameProblem(name) ?? '', new RegExp(why.replace(/[.()]/g, '\\$&')));
    });
  }
});

describe('the 1.2.0 folder_path rule', function () {
  it('refuses a body with folder_path naming folder_id, whatever else it holds', function () {
    assert.deepEqual(
      refusedFields(() => refuseFolderPath({ folder_path: '/a' })),
      ['folder_id'],
    );
    assert.deepEqual(
      refusedFields(() => refuseFolderPath({ folder_path: null, folder_id: null })),
      ['folder_id'],
    );
  });
  it('lets any other body through to the schema', function () {
    refuseFolderPath({ folder_id: null });
    refuseFolderPath(undefined);
    refuseFolderPath('folder_path');
  });
});

describe('listing pages', function () {
  it('defaults to 50 from the start', function () {
    assert.deepEqual(pageOf({}), { limit: 50 });
  });
  it('reads back a cursor it wrote', function () {
    const c = { k: 1, n: 'b.txt', i: '6f1c7a4e-3a0b-4c5e-9f7d-2b8e1c0d9a11' };
    const cursor = Buffer.from(JSON.stringify(c)).toString('base64url');
    assert.deepEqual(pageOf({ limit: '2', cursor }), { limit: 2, after: c });
  });
  for (const limit of ['0', '201', '9999']) {
    it(`refuses limit ${limit} naming limit`, function () {
      assert.deepEqual(
        refusedFields(() => pageOf({ limit })),
        ['limit'],
      );
    });
  }
  for (const cursor of [
    'garbage',
    Buffer.from('{"k":2,"n":"x","i":"y"}').toString('base64url'),
    Buffer.from('[]').toString('base64url'),
  ]) {
    it(`refuses the cursor ${cursor.slice(0, 12)} naming cursor`, function () {
      assert.deepEqual(
        refusedFields(() => pageOf({ cursor })),
        ['cursor'],
      );
    });
  }
});

describe('name search patterns', function () {
  it('takes %, _ and \\ literally', function () {
    assert.equal(containsPattern('50%_off\\'), '%50\\%\\_off\\\\%');
    assert.equal(containsPattern('plain'), '%plain%');
  });
});
