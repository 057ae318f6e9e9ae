import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  paginateListObjectsV2,
  S3Client,
  type _Object,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  BLOB_KEY,
  type BlobStore,
  BlobStoreFailure,
  BlobTooLarge,
  ByteMeter,
  type StagedBlob,
} from './files-blob-store.js';

/** Where an S3-compatible store keeps files' bytes (AIPLANE_FILES_S3_*, docs/adr/0038). */
export interface S3StoreSettings {
  readonly bucket: string;
  /** Put before every key: empty, or ending in `/`. */
  readonly prefix: string;
  readonly region: string;
  /** An S3-compatible server's URL; null: AWS's own endpoint for the region. */
  readonly endpoint: string | null;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>`. */
  readonly forcePathStyle: boolean;
  /** Static keys (secrets); null: the SDK's default chain (web identity, instance role, …). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
}

/** Bytes per part of a multipart upload; a smaller file is one PutObject. */
const PART_SIZE = 8 * 2 ** 20;
/** The most bytes S3 copies in one CopyObject (the S3 store's AIPLANE_FILES_MAX_BYTES cap). */
export const S3_MAX_COPY_BYTES = 5 * 2 ** 30;

const UNAVAILABLE_NAMES = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'RequestTimeout',
  'ServiceUnavailable',
  'TimeoutError',
  'AbortError',
]);

/**
 * An S3 client's error as a {@link BlobStoreFailure}: no HTTP answer (refused, reset, timed
 * out), a 5xx, a 429 or a throttling code is `unavailable` (503); any other answer (credentials,
 * bucket, permissions) is a refusal (502). The message names the operation and the error's
 * name or network code, never its text (which may quote a request).
 */
export function s3Failure(operation: string, err: unknown): BlobStoreFailure {
  const e = (err ?? {}) as {
    name?: unknown;
    code?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  const status = e.$metadata?.httpStatusCode;
  const code = typeof e.code === 'string' && /^E[A-Z_]+$/.test(e.code) ? e.code : undefined;
  const name = typeof e.name === 'string' && /^\w{1,64}$/.test(e.name) ? e.name : 'Error';
  const what = code ?? name;
  const unavailable =
    status === undefined || status >= 500 || status === 429 || UNAVAILABLE_NAMES.has(name);
  return unavailable
    ? new BlobStoreFailure(`the file store (S3) did not answer ${operation}: ${what}`, true)
    : new BlobStoreFailure(
        `the file store (S3) refused ${operation}: ${what} (HTTP ${status})`,
        false,
      );
}

/** No such object (a missing bucket is a misconfiguration, not a missing blob). */
function notFound(err: unknown): boolean {
  const e = err as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  return (
    e?.name === 'NoSuchKey' || (e?.$metadata?.httpStatusCode === 404 && e?.name !== 'NoSuchBucket')
  );
}

/** The client: bounded connection and idle times; checksums only where S3 demands them. */
export function s3Client(s: S3StoreSettings): S3Client {
  return new S3Client({
    region: s.region,
    ...(s.endpoint === null ? {} : { endpoint: s.endpoint }),
    forcePathStyle: s.forcePathStyle,
    ...(s.credentials === null ? {} : { credentials: { ...s.credentials } }),
    // Many S3-compatible servers refuse the flexible checksums the SDK adds by default; the
    // store hashes the bytes itself (SHA-256).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
  });
}

/**
 * An S3-compatible store (docs/adr/0038), with the directory store's semantics: a blob is
 * staged at `<prefix>tmp/<uuid>` (streamed, counted and hashed on the way, a multipart upload
 * past {@link PART_SIZE}), made visible at `<prefix>blobs/<uuid>` on commit by a server-side
 * copy (a reader never sees a partial blob), and the staged object then removed.
 */
export class S3BlobStore implements BlobStore {
  private readonly s3: S3Client;

  constructor(
    private readonly settings: S3StoreSettings,
    client?: S3Client,
  ) {
    this.s3 = client ?? s3Client(settings);
  }

  private stagingKey(id: string): string {
    return `${this.settings.prefix}tmp/${id}`;
  }

  private blobKey(key: string): string {
    if (!BLOB_KEY.test(key)) throw new Error(`not a blob key: ${key}`);
    return `${this.settings.prefix}blobs/${key}`;
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw s3Failure(operation, err);
    }
  }

  private deleteObject(key: string): Promise<unknown> {
    return this.call('DeleteObject', () =>
      this.s3.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key })),
    );
  }

  /** Removes a staged object; a failure leaves it to {@link removeStaleStaged}. */
  private async dropStaged(key: string): Promise<void> {
    await this.deleteObject(key).catch(() => undefined);
  }

  async stage(source: Readable, maxBytes: number): Promise<StagedBlob> {
    const id = randomUUID();
    const key = this.stagingKey(id);
    const meter = new ByteMeter(maxBytes);
    const body = new PassThrough();
    const upload = new Upload({
      client: this.s3,
      params: {
        Bucket: this.settings.bucket,
        Key: key,
        Body: body,
        ContentType: 'application/octet-stream',
      },
      partSize: PART_SIZE,
      queueSize: 1,
      leavePartsOnError: false,
    });
    const done = upload.done();
    // Set once the upload ended, or was stopped: nothing more is written to it.
    let stopped = false;
    let uploadError: unknown;
    const settled = done.then(
      () => void (stopped = true),
      (err: unknown) => {
        stopped = true;
        uploadError = err;
      },
    );
    try {
      // The source is read to its end whatever happens (a request's body must be read before
      // it is answered); what passes the limit, or follows a failed upload, is dropped.
      for await (const chunk of source as AsyncIterable<Buffer>) {
        if (stopped) continue;
        if (!meter.add(chunk)) {
          stopped = true;
          await upload.abort().catch(() => undefined); // the staged key is deleted below
          continue;
        }
        if (!body.write(chunk)) {
          await Promise.race([new Promise((r) => body.once('drain', r)), settled]);
        }
      }
      body.end();
      await done;
    } catch (err) {
      if (!stopped) await upload.abort().catch(() => undefined);
      await this.dropStaged(key); // a PutObject may have landed before the abort
      if (meter.over()) throw new BlobTooLarge(maxBytes);
      if (err === uploadError) throw s3Failure('PutObject', err);
      throw err; // the source failed (the request was aborted)
    }
    if (meter.over()) {
      await this.dropStaged(key);
      throw new BlobTooLarge(maxBytes);
    }
    const { bucket } = this.settings;
    return {
      size: meter.size,
      sha256: meter.digest(),
      commit: async () => {
        await this.call('CopyObject', () =>
          this.s3.send(
            new CopyObjectCommand({
              Bucket: bucket,
              Key: this.blobKey(id),
              CopySource: `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
              MetadataDirective: 'COPY',
            }),
          ),
        );
        // The copy's time is the blob's (the orphan sweep's grace period counts from it).
        await this.dropStaged(key);
        return id;
      },
      discard: () => this.dropStaged(key),
    };
  }

  async open(key: string): Promise<Readable | undefined> {
    const Key = this.blobKey(key);
    let body: unknown;
    try {
      body = (await this.s3.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key }))).Body;
    } catch (err) {
      if (notFound(err)) return undefined;
      throw s3Failure('GetObject', err);
    }
    if (!(body instanceof Readable)) {
      throw new BlobStoreFailure('the file store (S3) answered GetObject without a body', false);
    }
    return body;
  }

  async remove(key: string): Promise<void> {
    await this.deleteObject(this.blobKey(key)); // S3 answers 204 for a missing key too
  }

  /** Every object under `prefix`, a page (up to 1000) at a time. */
  private async *objectsUnder(prefix: string): AsyncIterable<_Object> {
    const pages = paginateListObjectsV2(
      { client: this.s3 },
      { Bucket: this.settings.bucket, Prefix: prefix },
    );
    const it = pages[Symbol.asyncIterator]();
    for (;;) {
      const page = await this.call('ListObjectsV2', () => it.next());
      if (page.done) return;
      yield* page.value.Contents ?? [];
    }
  }

  async *keysWrittenBefore(before: Date): AsyncIterable<string> {
    const under = `${this.settings.prefix}blobs/`;
    for await (const o of this.objectsUnder(under)) {
      const key = o.Key?.slice(under.length) ?? '';
      if (BLOB_KEY.test(key) && o.LastModified !== undefined && o.LastModified < before) {
        yield key;
      }
    }
  }

  async removeStaleStaged(before: Date): Promise<number> {
    const under = `${this.settings.prefix}tmp/`;
    let removed = 0;
    const stale: string[] = [];
    for await (const o of this.objectsUnder(under)) {
      if (o.Key && o.LastModified !== undefined && o.LastModified < before) stale.push(o.Key);
    }
    for (const key of stale) {
      await this.deleteObject(key);
      removed++;
    }
    // Multipart uploads never completed nor aborted (a crash while a large file streamed in).
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page: ListMultipartUploadsCommandOutput = await this.call('ListMultipartUploads', () =>
        this.s3.send(
          new ListMultipartUploadsCommand({
            Bucket: this.settings.bucket,
            Prefix: under,
            ...markers,
          }),
        ),
      );
      for (const u of page.Uploads ?? []) {
        if (!u.Key || !u.UploadId || u.Initiated === undefined || u.Initiated >= before) continue;
        await this.call('AbortMultipartUpload', () =>
          this.s3.send(
            new AbortMultipartUploadCommand({
              Bucket: this.settings.bucket,
              Key: u.Key,
              UploadId: u.UploadId,
            }),
          ),
        );
        removed++;
      }
      if (!page.IsTruncated) return removed;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }
}
