import assert from 'node:assert/strict';
import { readFilesS3Config } from './files-store-config.js';

const MiB = 2 ** 20;

function read(env: Record<string, string>, maxBytes = 50 * MiB) {
  const problems: string[] = [];
  return { settings: readFilesS3Config(env, maxBytes, problems), problems };
}

describe('the files blob store configuration (AIPLANE_FILES_STORE, AIPLANE_FILES_S3_*)', function () {
  it('is the directory store unless s3 is chosen', function () {
    assert.deepEqual(read({}), { settings: null, problems: [] });
    assert.deepEqual(read({ AIPLANE_FILES_STORE: 'directory' }), { settings: null, problems: [] });
    assert.deepEqual(read({ AIPLANE_FILES_STORE: 'nfs' }).problems, [
      'AIPLANE_FILES_STORE must be directory or s3, got "nfs"',
    ]);
  });

  it('reads an S3-compatible server: path style by default, the prefix ending in a slash, static keys', function () {
    const { settings, problems } = read({
      AIPLANE_FILES_STORE: 's3',
      AIPLANE_FILES_S3_BUCKET: 'aiplane-files',
      AIPLANE_FILES_S3_ENDPOINT: 'http://minio.storage:9000/',
      AIPLANE_FILES_S3_REGION: 'eu-west-1',
      AIPLANE_FILES_S3_PREFIX: 'prod/files',
      AIPLANE_FILES_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AIPLANE_FILES_S3_SECRET_ACCESS_KEY: 'secret-value-123',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, {
      bucket: 'aiplane-files',
      prefix: 'prod/files/',
      region: 'eu-west-1',
      endpoint: 'http://minio.storage:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-value-123' },
    });
  });

  it('on AWS itself: virtual-hosted addressing, us-east-1, and the SDK’s own credentials when no keys are set', function () {
    const { settings, problems } = read({
      AIPLANE_FILES_STORE: 's3',
      AIPLANE_FILES_S3_BUCKET: 'files',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, {
      bucket: 'files',
      prefix: '',
      region: 'us-east-1',
      endpoint: null,
      forcePathStyle: false,
      credentials: null,
    });
    const forced = read({
      AIPLANE_FILES_STORE: 's3',
      AIPLANE_FILES_S3_BUCKET: 'files',
      AIPLANE_FILES_S3_ENDPOINT: 'https://s3.example.com',
      AIPLANE_FILES_S3_FORCE_PATH_STYLE: 'false',
    });
    assert.equal(forced.settings?.forcePathStyle, false);
  });

  const refusals: [string, Record<string, string>, RegExp, number?][] = [
    [
      'a missing bucket',
      { AIPLANE_FILES_S3_BUCKET: '' },
      /AIPLANE_FILES_S3_BUCKET must be an S3 bucket name/,
    ],
    [
      'a bucket name with capitals',
      { AIPLANE_FILES_S3_BUCKET: 'Files' },
      /AIPLANE_FILES_S3_BUCKET/,
    ],
    [
      'an endpoint with a path',
      { AIPLANE_FILES_S3_ENDPOINT: 'http://h:9000/bucket' },
      /AIPLANE_FILES_S3_ENDPOINT/,
    ],
    [
      'an endpoint that is no URL',
      { AIPLANE_FILES_S3_ENDPOINT: 'minio:9000' },
      /AIPLANE_FILES_S3_ENDPOINT/,
    ],
    [
      'path style not a boolean',
      { AIPLANE_FILES_S3_FORCE_PATH_STYLE: 'yes' },
      /AIPLANE_FILES_S3_FORCE_PATH_STYLE/,
    ],
    ['a prefix from the root', { AIPLANE_FILES_S3_PREFIX: '/files' }, /AIPLANE_FILES_S3_PREFIX/],
    [
      'a key id without its secret',
      { AIPLANE_FILES_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE' },
      /set together, or neither/,
    ],
    [
      'a secret without its key id',
      { AIPLANE_FILES_S3_SECRET_ACCESS_KEY: 'hunter2-secret' },
      /set together, or neither/,
    ],
    [
      'a size limit past one CopyObject',
      {},
      /AIPLANE_FILES_MAX_BYTES must be at most 5368709120/,
      6 * 2 ** 30,
    ],
  ];
  for (const [what, env, problem, maxBytes] of refusals) {
    it(`refuses ${what}, naming the variable and never a secret`, function () {
      const { problems } = read(
        { AIPLANE_FILES_STORE: 's3', AIPLANE_FILES_S3_BUCKET: 'files', ...env },
        maxBytes,
      );
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0]!, problem);
      assert.doesNotMatch(problems[0]!, /hunter2/);
    });
  }
});
