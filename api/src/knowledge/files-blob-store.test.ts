import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
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

  it('lists the keys of blobs written before a time, and removes staged bytes left older than it', async function () {
    const store = new DirectoryBlobStore(dir);
    const commit = async (text: string) =>
      (await store.stage(Readable.from([Buffer.from(text)]), 100)).commit();
    const old = await commit('old');
    await commit('fresh'); // written now: not listed
    const past = new Date(Date.now() - 3_600_000);
    await utimes(join(dir, 'blobs', old.slice(0, 2), old), past, past);
    await writeFile(join(dir, 'blobs', old.slice(0, 2), 'not-a-key'), 'x'); // never listed
    await store.stage(Readable.from([Buffer.from('never committed')]), 100);
    const staleFile = (await filesUnder(dir)).find((f) => f.startsWith('tmp/'))!;
    await utimes(join(dir, staleFile), past, past);
    const recent = await store.stage(Readable.from([Buffer.from('uploading')]), 100);
    const cut = new Date(Date.now() - 60_000);
    const keys: string[] = [];
    for await (const k of store.keysWrittenBefore(cut)) keys.push(k);
    assert.deepEqual(keys, [old]);
    assert.equal(await store.removeStaleStaged(cut), 1);
    assert.equal((await filesUnder(dir)).filter((f) => f.startsWith('tmp/')).length, 1);
    await recent.commit(); // the one in progress is untouched
    const empty = new DirectoryBlobStore(join(dir, 'nothing-here'));
    for await (const k of empty.keysWrittenBefore(new Date())) assert.fail(`listed ${k}`);
    assert.equal(await empty.removeStaleStaged(new Date()), 0);
  });
});
