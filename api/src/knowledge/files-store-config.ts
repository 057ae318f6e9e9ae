import { S3_MAX_COPY_BYTES, type S3StoreSettings } from './files-s3-blob-store.js';

/** An S3 bucket name: 3–63 lower-case letters, digits, dots and hyphens, alphanumeric at both ends. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * The files' blob store (docs/adr/0038) for api/src/config.ts (the one loader):
 * `AIPLANE_FILES_STORE` `directory` (the default; AIPLANE_FILES_DIR) or `s3` with the
 * AIPLANE_FILES_S3_* settings. Answers the S3 store's settings, or null for the directory.
 * Problems are appended to `problems`; they name variables, never a secret's value.
 */
export function readFilesS3Config(
  env: NodeJS.ProcessEnv,
  maxBytes: number,
  problems: string[],
): S3StoreSettings | null {
  const kind = env.AIPLANE_FILES_STORE || 'directory';
  if (kind !== 'directory' && kind !== 's3') {
    problems.push(`AIPLANE_FILES_STORE must be directory or s3, got "${kind}"`);
    return null;
  }
  if (kind === 'directory') return null;
  const bucket = env.AIPLANE_FILES_S3_BUCKET ?? '';
  if (!BUCKET.test(bucket) || bucket.includes('..')) {
    problems.push(
      `AIPLANE_FILES_S3_BUCKET must be an S3 bucket name (3–63 of a-z, 0-9, ".", "-"), got "${bucket}"`,
    );
  }
  const endpoint = env.AIPLANE_FILES_S3_ENDPOINT || null;
  if (endpoint !== null && !/^https?:\/\/[^/?#]+\/?$/.test(endpoint)) {
    problems.push(`AIPLANE_FILES_S3_ENDPOINT must be an http(s) URL without a path`);
  }
  const pathStyle = env.AIPLANE_FILES_S3_FORCE_PATH_STYLE || '';
  if (!['', 'true', 'false'].includes(pathStyle)) {
    problems.push(`AIPLANE_FILES_S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}"`);
  }
  let prefix = env.AIPLANE_FILES_S3_PREFIX ?? '';
  // eslint-disable-next-line no-control-regex
  if (prefix.startsWith('/') || prefix.length > 512 || /[\u0000-\u001f\u007f\\]/.test(prefix)) {
    problems.push(
      'AIPLANE_FILES_S3_PREFIX must be at most 512 characters, not start with "/" and hold no control character or "\\"',
    );
  }
  if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
  const accessKeyId = env.AIPLANE_FILES_S3_ACCESS_KEY_ID ?? '';
  const secretAccessKey = env.AIPLANE_FILES_S3_SECRET_ACCESS_KEY ?? '';
  if ((accessKeyId === '') !== (secretAccessKey === '')) {
    problems.push(
      'AIPLANE_FILES_S3_ACCESS_KEY_ID and AIPLANE_FILES_S3_SECRET_ACCESS_KEY are set together, or neither (the SDK’s default credentials)',
    );
  }
  if (maxBytes > S3_MAX_COPY_BYTES) {
    problems.push(
      `AIPLANE_FILES_MAX_BYTES must be at most ${S3_MAX_COPY_BYTES} with the S3 store (one CopyObject), got ${maxBytes}`,
    );
  }
  return Object.freeze({
    bucket,
    prefix,
    region: env.AIPLANE_FILES_S3_REGION || 'us-east-1',
    endpoint: endpoint?.replace(/\/$/, '') ?? null,
    // S3-compatible servers mostly want path-style addressing; AWS itself, virtual hosts.
    forcePathStyle: pathStyle === '' ? endpoint !== null : pathStyle === 'true',
    credentials: accessKeyId === '' ? null : Object.freeze({ accessKeyId, secretAccessKey }),
  });
}
