/**
 * TEST SUPPORT: the behaviour every {@link BlobStore} owes (docs/adr/0032, 0038), one suite run
 * against each store: the directory store in its unit test, the S3 store against a real S3
 * server (test/integration/files-s3-store.test.ts). Each store's harness says what it holds and
 * how to make an entry look old, in the store's own terms.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { type BlobStore, BlobTooLarge, readAll } from './files-blob-store.js';

export interface BlobStoreHarness {
  store: BlobStore;
  /** What the store holds: the committed blobs' keys (sorted), and how many staged entries. */
  contents(): Promise<{ blobs: string[]; staged: number }>;
  /** Makes the committed blob `key` look written at `when`. */
  backdateBlob(key: string, when: Date): Promise<void>;
  /** Makes every staged entry there is now look written at `when`. */
  backdateStaged(when: Date): Promise<void>;
  /** Puts an entry among the blobs that no store makes (not a key): never listed. */
  plantStranger(): Promise<void>;
  /** A store of the same kind where nothing was ever written. */
  empty(): BlobStore;
}

const bytesOf = (...parts: (string | Buffer)[]) =>
  Readable.from(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));

export function blobStoreContract(make: () => BlobStoreHarness): void {
  let h: BlobStoreHarness;
  beforeEach(function () {
    h = make();
  });

  it('stages aside (no blob yet), then commits: the key opens the bytes; size and sha256 are of the bytes', async function () {
    const staged = await h.store.stage(bytesOf('hello ', 'world'), 100);
    assert.equal(staged.size, 11);
    assert.equal(staged.sha256, createHash('sha256').update('hello world').digest('hex'));
    assert.deepEqual(await h.contents(), { blobs: [], staged: 1 });
    const key = await staged.commit();
    assert.deepEqual(await h.contents(), { blobs: [key], staged: 0 });
    assert.equal((await readAll((await h.store.open(key))!)).toString(), 'hello world');
    await h.store.remove(key);
    assert.equal(await h.store.open(key), undefined);
    await h.store.remove(key); // a missing blob is no error
    assert.deepEqual(await h.contents(), { blobs: [], staged: 0 });
  });

  it('streams a file of several megabytes and an empty one through unchanged', async function () {
    const big = randomBytes(9 * 2 ** 20 + 17);
    const parts = Array.from({ length: 10 }, (_, i) =>
      big.subarray(i * 2 ** 20, (i + 1) * 2 ** 20),
    );
    const staged = await h.store.stage(bytesOf(...parts), 10 * 2 ** 20);
    assert.equal(staged.size, big.length);
    assert.equal(staged.sha256, createHash('sha256').update(big).digest('hex'));
    const key = await staged.commit();
    assert.ok((await readAll((await h.store.open(key))!)).equals(big));
    const none = await (await h.store.stage(bytesOf(), 10)).commit();
    assert.equal((await readAll((await h.store.open(none))!)).length, 0);
    assert.deepEqual((await h.contents()).blobs, [key, none].sort());
  });

  it('refuses a source over the limit and leaves nothing behind; a discarded stage leaves nothing either', async function () {
    await assert.rejects(
      h.store.stage(bytesOf(Buffer.alloc(60), Buffer.alloc(60)), 100),
      BlobTooLarge,
    );
    assert.deepEqual(await h.contents(), { blobs: [], staged: 0 });
    const staged = await h.store.stage(bytesOf('x'), 100);
    await staged.discard();
    assert.deepEqual(await h.contents(), { blobs: [], staged: 0 });
  });

  it('opens and removes only keys it could have made', async function () {
    await assert.rejects(h.store.open('../../etc/passwd'), /not a blob key/);
    await assert.rejects(h.store.remove('tmp/x'), /not a blob key/);
  });

  it('lists the keys of blobs written before a time, and removes staged bytes left older than it', async function () {
    const commit = async (text: string) => (await h.store.stage(bytesOf(text), 100)).commit();
    const old = await commit('old');
    await commit('fresh'); // written now: not listed
    const past = new Date(Date.now() - 3_600_000);
    await h.backdateBlob(old, past);
    await h.plantStranger();
    await h.store.stage(bytesOf('never committed'), 100);
    await h.backdateStaged(past);
    const recent = await h.store.stage(bytesOf('uploading'), 100);
    const cut = new Date(Date.now() - 60_000);
    const keys: string[] = [];
    for await (const k of h.store.keysWrittenBefore(cut)) keys.push(k);
    assert.deepEqual(keys, [old]);
    assert.equal(await h.store.removeStaleStaged(cut), 1);
    assert.equal((await h.contents()).staged, 1);
    await recent.commit(); // the one in progress is untouched
    const empty = h.empty();
    for await (const k of empty.keysWrittenBefore(new Date())) assert.fail(`listed ${k}`);
    assert.equal(await empty.removeStaleStaged(new Date()), 0);
  });
}
