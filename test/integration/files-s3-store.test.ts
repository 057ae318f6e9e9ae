import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { startS3Server, type S3Server } from '@aiplane/hack';
import {
  BLOB_KEY,
  BlobStoreFailure,
  BlobTooLarge,
} from '../../api/src/knowledge/files-blob-store.js';
import { blobStoreContract } from '../../api/src/knowledge/files-blob-store-contract.js';
import {
  S3BlobStore,
  s3Client,
  type S3StoreSettings,
} from '../../api/src/knowledge/files-s3-blob-store.js';
import {
  assertCode,
  cachedToken,
  keycloak,
  queryRows,
  startTestApi,
  type TestApi,
} from './api-helpers.js';
import { acting, type Acting, type FileList, fileWithStatus, uploadText } from './files-helpers.js';
import { environment } from './harness.js';
import { rememberSecret } from './secrets.js';

const STORE_BUCKET = 'aiplane-store';
const API_BUCKET = 'aiplane-api';
const MiB = 2 ** 20;

/** The keys under `prefix` in `bucket`, as a plain S3 client lists them, and the open uploads. */
async function rawListing(
  client: S3Client,
  bucket: string,
  prefix: string,
): Promise<{ keys: string[]; uploads: string[] }> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  const uploads = await client.send(
    new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }),
  );
  return { keys: keys.sort(), uploads: (uploads.Uploads ?? []).map((u) => u.Key!) };
}

/**
 * The S3 blob store (docs/adr/0038) against a real S3 server: versitygw over a temporary
 * directory, started on loopback for this file (hack/src/s3-server.ts).
 */
describe('the S3 blob store against a real S3 server (versitygw)', function () {
  this.timeout(300_000);
  let s3: S3Server;
  let raw: S3Client;
  const settings = (bucket: string, prefix: string, secret?: string): S3StoreSettings => ({
    bucket,
    prefix,
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: secret ?? s3.secretAccessKey },
  });

  before(async function () {
    s3 = await startS3Server({
      logFile: join(environment().controlPlane.logDir, 'versitygw.log'),
      buckets: [STORE_BUCKET, API_BUCKET],
    });
    rememberSecret(s3.secretAccessKey);
    raw = s3Client(settings(STORE_BUCKET, ''));
  });

  after(async function () {
    raw?.destroy();
    await s3?.close();
  });

  describe('keeps the contract every blob store keeps', function () {
    // Each test has a prefix of its own; versitygw keeps object <key> as the file
    // <root>/<bucket>/<key>, whose mtime is its LastModified (how the tests age an entry).
    blobStoreContract(() => {
      const prefix = `contract-${randomUUID()}/`;
      const store = new S3BlobStore(settings(STORE_BUCKET, prefix));
      const fileOf = (key: string) => join(s3.root, STORE_BUCKET, key);
      return {
        store,
        contents: async () => {
          const blobs = await rawListing(raw, STORE_BUCKET, `${prefix}blobs/`);
          const staged = await rawListing(raw, STORE_BUCKET, `${prefix}tmp/`);
          return {
            blobs: blobs.keys
              .map((k) => k.slice(`${prefix}blobs/`.length))
              .filter((k) => BLOB_KEY.test(k)),
            staged: staged.keys.length + staged.uploads.length,
          };
        },
        backdateBlob: (key, when) => utimes(fileOf(`${prefix}blobs/${key}`), when, when),
        backdateStaged: async (when) => {
          for (const key of (await rawListing(raw, STORE_BUCKET, `${prefix}tmp/`)).keys) {
            await utimes(fileOf(key), when, when);
          }
        },
        plantStranger: async () => {
          await raw.send(
            new PutObjectCommand({
              Bucket: STORE_BUCKET,
              Key: `${prefix}blobs/not-a-key`,
              Body: 'x',
            }),
          );
        },
        empty: () => new S3BlobStore(settings(STORE_BUCKET, `${prefix}nothing-here/`)),
      };
    });
  });

  it('commits a blob as <prefix>blobs/<uuid> by a server-side copy, and no staged object stays', async function () {
    const prefix = `layout-${randomUUID()}/`;
    const store = new S3BlobStore(settings(STORE_BUCKET, prefix));
    const staged = await store.stage(Readable.from([Buffer.from('bytes')]), 100);
    const [stagedKey] = (await rawListing(raw, STORE_BUCKET, prefix)).keys;
    assert.match(stagedKey!, new RegExp(`^${prefix}tmp/[0-9a-f-]{36}$`));
    const key = await staged.commit();
    assert.deepEqual(await rawListing(raw, STORE_BUCKET, prefix), {
      keys: [`${prefix}blobs/${key}`],
      uploads: [],
    });
  });

  it('refuses a source past the limit in the middle of a multipart upload: BlobTooLarge, no object and no open upload left, the source read to its end', async function () {
    const prefix = `large-${randomUUID()}/`;
    const store = new S3BlobStore(settings(STORE_BUCKET, prefix));
    let read = 0;
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < 24; i++) {
          read += MiB;
          yield randomBytes(MiB);
        }
      })(),
    );
    await assert.rejects(store.stage(source, 18 * MiB), BlobTooLarge);
    assert.equal(read, 24 * MiB, 'the whole source was read');
    assert.deepEqual(await rawListing(raw, STORE_BUCKET, prefix), { keys: [], uploads: [] });
  });

  it('removes a multipart upload left open under tmp/ (a crash mid-upload) with the stale staged bytes', async function () {
    const prefix = `abandoned-${randomUUID()}/`;
    const store = new S3BlobStore(settings(STORE_BUCKET, prefix));
    const Key = `${prefix}tmp/${randomUUID()}`;
    const { UploadId } = await raw.send(
      new CreateMultipartUploadCommand({ Bucket: STORE_BUCKET, Key }),
    );
    await raw.send(
      new UploadPartCommand({
        Bucket: STORE_BUCKET,
        Key,
        UploadId,
        PartNumber: 1,
        Body: randomBytes(5 * MiB),
      }),
    );
    assert.deepEqual((await rawListing(raw, STORE_BUCKET, prefix)).uploads, [Key]);
    assert.equal(await store.removeStaleStaged(new Date(Date.now() - 3_600_000)), 0);
    assert.equal(await store.removeStaleStaged(new Date(Date.now() + 60_000)), 1);
    assert.deepEqual(await rawListing(raw, STORE_BUCKET, prefix), { keys: [], uploads: [] });
  });

  it('fails with a refusal (502 file_store_error) on wrong keys, naming the S3 error and never the secret', async function () {
    const wrong = `wrong-${randomBytes(12).toString('hex')}`;
    rememberSecret(wrong);
    const store = new S3BlobStore(settings(STORE_BUCKET, 'wrong/', wrong));
    const failure = await store.stage(Readable.from([Buffer.from('x')]), 100).then(
      () => assert.fail('staged with wrong keys'),
      (err: unknown) => err,
    );
    assert.ok(failure instanceof BlobStoreFailure, String(failure));
    assert.equal(failure.unavailable, false);
    assert.match(failure.message, /refused PutObject: SignatureDoesNotMatch \(HTTP 403\)/);
    assert.ok(!failure.message.includes(wrong) && !failure.message.includes(s3.secretAccessKey));
  });

  describe('behind the API (AIPLANE_FILES_STORE=s3)', function () {
    let api: TestApi;
    let filesDir: string;
    let a: Acting;
    const PREFIX = 'files/';
    const objects = () => rawListing(raw, API_BUCKET, PREFIX);

    before(async function () {
      // The directory store's directory: with the S3 store it must stay empty.
      filesDir = await mkdtemp(join(tmpdir(), 'aiplane-files-s3-'));
      api = await startTestApi('files-s3', {
        AIPLANE_FILES_DIR: filesDir,
        AIPLANE_FILES_STORE: 's3',
        AIPLANE_FILES_S3_BUCKET: API_BUCKET,
        AIPLANE_FILES_S3_ENDPOINT: s3.endpoint,
        AIPLANE_FILES_S3_REGION: s3.region,
        AIPLANE_FILES_S3_PREFIX: 'files',
        AIPLANE_FILES_S3_ACCESS_KEY_ID: s3.accessKeyId,
        AIPLANE_FILES_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      });
      a = acting(api.url, 'member', keycloak().organization.id);
    });

    after(async function () {
      await api?.close();
      if (filesDir) await rm(filesDir, { recursive: true, force: true });
    });

    it('stores an upload in the bucket, serves its bytes, indexes it for collection search, and deleting it removes the object', async function () {
      const text =
        '# Harbour notes\n\nThe old harbour crane lifts exactly 417 tonnes and was painted teal in 1962.\n';
      const file = await uploadText(a, 'harbour-notes.md', text);
      const stored = await objects();
      assert.equal(stored.keys.length, 1, stored.keys.join());
      assert.match(stored.keys[0]!, /^files\/blobs\/[0-9a-f-]{36}$/);
      assert.deepEqual(stored.uploads, []);
      assert.deepEqual(await readdir(filesDir), [], 'the directory store was not used');

      const content = await a.call('GET', `/v1/files/${file.id}/content`);
      assert.equal(content.status, 200);
      assert.equal(content.text, text);

      const ready = await fileWithStatus(a, file.id, 'RAG Available');
      assert.ok((ready.chunk_count ?? 0) >= 1);
      const r = await a.call('POST', '/v1/collections/documents/search', {
        query: 'How heavy a load can the harbour crane lift?',
      });
      assert.equal(r.status, 200, r.text);
      const top = (r.json() as { results: { document_id: string; text: string }[] }).results[0];
      assert.equal(top?.document_id, file.id);
      assert.match(top.text, /417 tonnes/);

      assert.equal((await a.call('DELETE', `/v1/files/${file.id}`)).status, 204);
      assert.deepEqual(await objects(), { keys: [], uploads: [] });
    });

    it('ends a download short when the S3 server dies in the middle of it, and the API goes on serving', async function () {
      // Larger than every buffer between versitygw and this client, so the server is still
      // sending when it is killed.
      const size = 48 * MiB;
      const r = await a.upload({
        folder_id: 'null',
        file: { data: randomBytes(size), filename: 'large.bin', type: 'application/octet-stream' },
      });
      assert.equal(r.status, 201, r.text);
      const file = r.json() as { id: string };
      const res = await fetch(`${api.url}/v1/files/${file.id}/content`, {
        headers: {
          authorization: `Bearer ${await cachedToken('member')}`,
          'x-aiplane-organization': keycloak().organization.id,
        },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-length'), String(size));
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let received = (await reader.read()).value?.length ?? 0;
      await s3.stop('SIGKILL');
      try {
        // The body ends early, or fails (undici: "terminated"): either way, short; never a
        // response left open (bounded: a hung one fails the test rather than its timeout).
        const drained = (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return 'ended';
            received += value.length;
          }
        })().catch(() => 'ended');
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<string>((r) => (timer = setTimeout(() => r('hung'), 60_000)));
        const outcome = await Promise.race([drained, hung]);
        clearTimeout(timer);
        if (outcome === 'hung') await reader.cancel();
        assert.equal(outcome, 'ended', 'the download was left open');
        assert.ok(received < size, `received ${received} of ${size} bytes`);
        // The API still answers (the failed stream never reached the process).
        assert.equal((await a.call('GET', `/v1/files/${file.id}`)).status, 200);
      } finally {
        await s3.start();
      }
      assert.equal((await a.call('DELETE', `/v1/files/${file.id}`)).status, 204);
      assert.deepEqual(await objects(), { keys: [], uploads: [] });
    });

    it('answers 503 file_store_unavailable while the S3 server is down, storing nothing, and works again once it is back', async function () {
      const before = await uploadText(a, 'before-outage.txt', 'written before the outage');
      const roots = async () =>
        ((await a.call('GET', '/v1/files/children?limit=200')).json() as FileList).items
          .map((n) => n.name)
          .sort();
      const listed = await roots();
      await s3.stop();
      try {
        const r = await a.upload({
          folder_id: 'null',
          file: { data: 'written during the outage', filename: 'during-outage.txt' },
        });
        assertCode(r, 503, 'file_store_unavailable');
        assert.doesNotMatch(r.text, new RegExp(s3.secretAccessKey));
        assertCode(
          await a.call('GET', `/v1/files/${before.id}/content`),
          503,
          'file_store_unavailable',
        );
        assert.deepEqual(await roots(), listed, 'no file row was written');
      } finally {
        await s3.start();
      }
      const [row] = await queryRows<{ blob_key: string }>(
        api.databaseUrl,
        'select blob_key from knowledge_nodes where id = $1',
        [before.id],
      );
      assert.deepEqual(await objects(), { keys: [`files/blobs/${row!.blob_key}`], uploads: [] });
      const after = await uploadText(a, 'after-outage.txt', 'written after the outage');
      assert.equal(
        (await a.call('GET', `/v1/files/${after.id}/content`)).text,
        'written after the outage',
      );
      assert.equal((await objects()).keys.length, 2);
    });
  });
});
