import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

/** A blob written to a temporary place, not yet visible under a key. */
export interface StagedBlob {
  readonly size: number;
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
  /** Makes the blob visible under a new key (atomically); answers the key. */
  commit(): Promise<string>;
  /** Removes the staged bytes (the upload was refused). */
  discard(): Promise<void>;
}

/** Raised when a source passes the size limit while it is staged; nothing stays behind. */
export class BlobTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the file is larger than ${limit} bytes`);
  }
}

/**
 * Where files' bytes live (docs/adr/0032). Blobs are addressed by an id the store chooses;
 * a blob is either wholly there or absent (written aside, then renamed into place).
 */
export interface BlobStore {
  /** Writes `source` aside (at most `maxBytes`, else {@link BlobTooLarge}). */
  stage(source: Readable, maxBytes: number): Promise<StagedBlob>;
  /** The blob's bytes; undefined when there is no such blob. */
  open(key: string): Promise<Readable | undefined>;
  /** Removes a blob; a missing one is no error. */
  remove(key: string): Promise<void>;
  /**
   * The keys of blobs written before `before`, for the sweep of blobs no file names (a crash
   * between a row's delete and its blob's, or between a blob's commit and its row's insert).
   */
  keysWrittenBefore(before: Date): AsyncIterable<string>;
  /** Removes staged bytes never committed (a crash mid-upload) older than `before`; how many. */
  removeStaleStaged(before: Date): Promise<number>;
}

/**
 * Counts and hashes a source's bytes up to `limit`; past it `add` keeps counting but answers
 * false (the bytes are not to be kept; a request's body must still be read to its end).
 */
export class ByteMeter {
  private readonly hash = createHash('sha256');
  size = 0;
  constructor(readonly limit: number) {}

  /** Counts `chunk`; true while the bytes so far are within the limit (and hashed). */
  add(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.over()) return false;
    this.hash.update(chunk);
    return true;
  }

  over(): boolean {
    return this.size > this.limit;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** A stream that passes what the meter keeps, and drops the rest. */
function metered(m: ByteMeter): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (m.add(chunk)) done(null, chunk);
      else done();
    },
  });
}

/**
 * A blob store's backend failed (not a missing blob): unreachable, overloaded or timed out
 * (`unavailable`, worth a retry), or it refused the request (credentials, bucket). The message
 * names the operation and the backend's error name, never credentials.
 */
export class BlobStoreFailure extends Error {
  override readonly name = 'BlobStoreFailure';
  constructor(
    message: string,
    readonly unavailable: boolean,
  ) {
    super(message);
  }
}

/** A blob key: a random UUID (lower case), which the stores make and nothing else. */
export const BLOB_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The default store: a directory on a volume (the chart's PVC). Blobs are
 * `<dir>/blobs/<first two hex digits>/<uuid>`; staging writes `<dir>/tmp/<uuid>.partial`, syncs
 * it to disk and renames it into place on commit, so a reader never sees a half-written blob.
 */
export class DirectoryBlobStore implements BlobStore {
  constructor(private readonly dir: string) {}

  private pathOf(key: string): string {
    if (!BLOB_KEY.test(key)) throw new Error(`not a blob key: ${key}`);
    return join(this.dir, 'blobs', key.slice(0, 2), key);
  }

  async stage(source: Readable, maxBytes: number): Promise<StagedBlob> {
    const tmpDir = join(this.dir, 'tmp');
    await mkdir(tmpDir, { recursive: true });
    const key = randomUUID();
    const partial = join(tmpDir, `${key}.partial`);
    const m = new ByteMeter(maxBytes);
    try {
      await pipeline(source, metered(m), createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
      if (m.over()) throw new BlobTooLarge(maxBytes);
      const fd = await open(partial, 'r');
      try {
        await fd.sync();
      } finally {
        await fd.close();
      }
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    const target = this.pathOf(key);
    return {
      size: m.size,
      sha256: m.digest(),
      commit: async () => {
        await mkdir(join(this.dir, 'blobs', key.slice(0, 2)), { recursive: true });
        // A blob's time is its commit's (rename keeps the staging's), which the sweep of
        // blobs no file names counts its grace period from (docs/adr/0032).
        const now = new Date();
        await utimes(partial, now, now);
        await rename(partial, target);
        return key;
      },
      discard: () => rm(partial, { force: true }),
    };
  }

  async open(key: string): Promise<Readable | undefined> {
    const path = this.pathOf(key);
    const found = await stat(path).catch(() => undefined);
    if (!found?.isFile()) return undefined;
    return createReadStream(path);
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async *keysWrittenBefore(before: Date): AsyncIterable<string> {
    const root = join(this.dir, 'blobs');
    for (const shard of await namesIn(root)) {
      for (const key of await namesIn(join(root, shard))) {
        if (!BLOB_KEY.test(key) || key.slice(0, 2) !== shard) continue;
        const s = await stat(join(root, shard, key)).catch(() => undefined);
        if (s?.isFile() && s.mtime < before) yield key;
      }
    }
  }

  async removeStaleStaged(before: Date): Promise<number> {
    const tmp = join(this.dir, 'tmp');
    let removed = 0;
    for (const name of await namesIn(tmp)) {
      if (!name.endsWith('.partial')) continue;
      const s = await stat(join(tmp, name)).catch(() => undefined);
      if (s && s.mtime < before) {
        await rm(join(tmp, name), { force: true });
        removed++;
      }
    }
    return removed;
  }
}

/** A directory's entries; none when it does not exist (nothing was ever written). */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Reads a whole stream into memory (small files: processing, tests). */
export async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}
