import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobTooLarge, DirectoryBlobStore, readAll } from './files-blob-store.js';

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const found = await readdir(dir, { recursive: true, withFileTypes: true });
  return found
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('the directory blob store', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'aiplane-blobs-'));
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('stages aside (not readable under any key), then commits by rename; size and sha256 are of the bytes', async function () {
    const store = new DirectoryBlobStore(dir);
    const staged = await store.stage(
      Readable.from([Buffer.from('hello '), Buffer.from('world')]),
      100,
    );
    assert.equal(staged.size, 11);
    assert.equal(staged.sha256, createHash('sha256').update('hello world').digest('hex'));
    const before = await filesUnder(dir);
    assert.equal(before.length, 1);
    assert.match(before[0]!, /^tmp\/[0-9a-f-]{36}\.partial$/);
    const key = await staged.commit();
    assert.deepEqual(await filesUnder(dir), [`blobs/${key.slice(0, 2)}/${key}`]);
    assert.equal((await readAll((await store.open(key))!)).toString(), 'hello world');
    await store.remove(key);
    assert.equal(await store.open(key), undefined);
    await store.remove(key); // a missing blob is no error
  });

  it('refuses a source over the limit and leaves nothing behind; a discarded stage leaves nothing either', async function () {
    const store = new DirectoryBlobStore(dir);
    await assert.rejects(
      store.stage(Readable.from([Buffer.alloc(60), Buffer.alloc(60)]), 100),
      BlobTooLarge,
    );
    assert.deepEqual(await filesUnder(dir), []);
    const staged = await store.stage(Readable.from([Buffer.from('x')]), 100);
    await staged.discard();
    assert.deepEqual(await filesUnder(dir), []);
  });

  it('opens only keys it could have made', async function () {
    const store = new DirectoryBlobStore(dir);
    await assert.rejects(store.open('../../etc/passwd'), /not a blob key/);
  });
});
