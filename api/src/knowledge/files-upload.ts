import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { type BlobStore, BlobTooLarge, type StagedBlob } from './files-blob-store.js';
import { refuseFolderPath } from './files-schemas.js';

/** An upload's form, its file staged in the blob store (not yet visible). */
export interface UploadParts {
  /** `folder_id`: a folder's id, or null for the root. */
  folderId: string | null;
  /** The `name` field, else the part's filename. */
  name: string;
  mediaType: string;
  staged: StagedBlob;
}

const FIELDS = new Set(['folder_id', 'name']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads a `multipart/form-data` upload (docs/adr/0032): exactly one file part named `file`
 * (streamed into the blob store's staging area, at most `maxBytes`), a `folder_id` field (a
 * UUID, or `null` for the root) and an optional `name`. Anything else is refused (422 naming the
 * part; `folder_path` → 422 naming `folder_id`), and the staged bytes are discarded then.
 */
export async function readUpload(
  req: IncomingMessage,
  blobs: BlobStore,
  maxBytes: number,
): Promise<UploadParts> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fields: 10, fieldSize: 4096, parts: 12 },
    });
  } catch {
    throw new ApiError(
      'unsupported_media_type',
      'an upload is multipart/form-data with a file part named "file" and a folder_id field',
    );
  }
  const fields: Record<string, string> = {};
  const refused: { field: string; message: string }[] = [];
  let file: Promise<{ staged: StagedBlob; filename: string; mimeType: string }> | undefined;
  await new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value) => {
      if (name in fields) refused.push({ field: name, message: 'is sent twice' });
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || file) {
        refused.push({ field: name, message: 'is not expected (one file part named "file")' });
        stream.resume();
        return;
      }
      const staging = blobs
        .stage(stream, maxBytes)
        .then((staged) => ({ staged, filename: info.filename ?? '', mimeType: info.mimeType }));
      staging.catch(() => undefined); // answered below
      file = staging;
    });
    parser.on('filesLimit', () => refused.push({ field: 'file', message: 'one file per upload' }));
    parser.on('partsLimit', () => refused.push({ field: 'file', message: 'too many parts' }));
    parser.on('error', (err) => reject(err instanceof Error ? err : new Error(String(err))));
    parser.on('close', () => resolve());
    req.on('aborted', () => reject(new ApiError('bad_request', 'the upload was aborted')));
    req.pipe(parser);
  }).catch(async (err: unknown) => {
    await (await file?.catch(() => undefined))?.staged.discard();
    if (err instanceof ApiError) throw err;
    throw new ApiError(
      'bad_request',
      `the multipart body could not be read: ${(err as Error).message}`,
    );
  });
  let got;
  try {
    got = await file;
  } catch (err) {
    if (err instanceof BlobTooLarge) {
      throw new ApiError('request_too_large', `the file is larger than ${maxBytes} bytes`);
    }
    throw err;
  }
  try {
    refuseFolderPath(fields);
    for (const name of Object.keys(fields)) {
      if (!FIELDS.has(name)) refused.push({ field: name, message: 'unknown field' });
    }
    const folderId = fields.folder_id;
    if (folderId === undefined)
      refused.push({
        field: 'folder_id',
        message: 'is required (a folder’s id, or null for the root)',
      });
    else if (folderId !== 'null' && !UUID.test(folderId)) {
      refused.push({ field: 'folder_id', message: 'must be a folder’s id (UUID) or null' });
    }
    if (!got) refused.push({ field: 'file', message: 'is required (the file part)' });
    if (refused.length > 0 || !got || folderId === undefined) throw new ValidationFailed(refused);
    return {
      folderId: folderId === 'null' ? null : folderId.toLowerCase(),
      name: fields.name ?? got.filename,
      mediaType: got.mimeType || 'application/octet-stream',
      staged: got.staged,
    };
  } catch (err) {
    await got?.staged.discard();
    throw err;
  }
}
