import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOB_KEY, DirectoryBlobStore } from './files-blob-store.js';
import { blobStoreContract } from './files-blob-store-contract.js';

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const found = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
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

  // Blobs are blobs/<first two hex digits>/<key>, staged bytes tmp/<uuid>.partial.
  blobStoreContract(() => ({
    store: new DirectoryBlobStore(dir),
    contents: async () => {
      const files = await filesUnder(dir);
      const blobs = files
        .map((f) => /^blobs\/([0-9a-f]{2})\/(.+)$/.exec(f))
        .filter((m) => m !== null && BLOB_KEY.test(m[2]!) && m[2]!.startsWith(m[1]!))
        .map((m) => m![2]!);
      const staged = files.filter((f) => /^tmp\/[0-9a-f-]{36}\.partial$/.test(f)).length;
      return { blobs: blobs.sort(), staged };
    },
    backdateBlob: (key, when) => utimes(join(dir, 'blobs', key.slice(0, 2), key), when, when),
    backdateStaged: async (when) => {
      for (const f of await filesUnder(dir)) {
        if (f.startsWith('tmp/')) await utimes(join(dir, f), when, when);
      }
    },
    plantStranger: async () => {
      const shard = (await readdir(join(dir, 'blobs')))[0]!;
      await writeFile(join(dir, 'blobs', shard, 'not-a-key'), 'x');
    },
    empty: () => new DirectoryBlobStore(join(dir, 'nothing-here')),
  }));
});
