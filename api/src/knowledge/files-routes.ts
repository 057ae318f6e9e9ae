import { pipeline } from 'node:stream/promises';
import { type Router, Router as newRouter } from 'express';
import { principalOf } from '@aiplane/lib/auth';
import { ValidationFailed } from '@aiplane/lib/errors';
import { isUuid, operation } from '@aiplane/lib/service';
import { engineApiError } from './engine-errors.js';
import type { BlobStore } from './files-blob-store.js';
import type { Files } from './files.js';
import {
  ChildrenQuery,
  FileListSchema,
  FileNodeSchema,
  pageOf,
  PickerQuery,
  SearchQuery,
  UploadForm,
} from './files-schemas.js';
import { readUpload } from './files-upload.js';
import { nodeRoutes } from './folders-routes.js';

export interface FilesRouterOptions {
  files: Files;
  blobs: BlobStore;
  /** The most bytes one file may have (AIPLANE_FILES_MAX_BYTES). */
  maxBytes: number;
}

const SCOPE_DOC =
  '`scope`: `mine` (owned by the caller), `shared_with_me` (shared with the caller, not owned), `all` (both; the default).';

/** `folder_id` of a listing: absent or `null` is the caller's root; else a folder's UUID. */
function folderIdOf(value: string | undefined): string | null {
  if (value === undefined || value === 'null') return null;
  if (!isUuid(value)) {
    throw new ValidationFailed([
      { field: 'folder_id', message: 'must be a folder’s id (UUID) or null for the root' },
    ]);
  }
  return value.toLowerCase();
}

/** What a route that reads or writes the blob store may answer when it fails (docs/adr/0038). */
const FILE_STORE_ERRORS = ['file_store_unavailable', 'file_store_error'] as const;

/** Runs `work`, answering a blob store's failure as 503 / 502 (engineApiError). */
async function fileStoreErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw engineApiError(err) ?? err;
  }
}

/** `/v1/files` (spec: Endpoints, files; Resources, Files scope values; docs/adr/0032). */
export function filesRouter(opts: FilesRouterOptions): Router {
  const router = newRouter();
  const { files } = opts;
  const tags = ['files'];
  const list = { 200: { description: 'One page of files and folders.', schema: FileListSchema } };

  operation(
    router,
    {
      method: 'get',
      path: '/children',
      operationId: 'listFileChildren',
      summary: 'The files and folders in a folder, or at the caller’s root',
      description: `\`folder_id\`: a folder the caller reads; absent or \`null\`: the root (the caller’s own root nodes, and the tops of what was shared with them). ${SCOPE_DOC} Folders first, then by name; \`limit\` 1–200 (default 50), \`cursor\` from \`next_cursor\`.`,
      tags,
      organization: true,
      query: ChildrenQuery,
      responses: list,
      errors: ['folder_not_found', 'identity_provider_unavailable'],
    },
    async (_req, res, { organizationId, query }) => {
      const folderId = folderIdOf(query.folder_id);
      const page = pageOf(query);
      const caller = await files.caller(principalOf(res), organizationId);
      res.json(await files.children(caller, folderId, query.scope ?? 'all', page));
    },
  );

  operation(
    router,
    {
      method: 'get',
      path: '/search',
      operationId: 'searchFiles',
      summary: 'Files and folders the caller reads whose name contains `q`',
      description: `Any case; \`kind\` keeps files or folders only. ${SCOPE_DOC} Paginated as the children.`,
      tags,
      organization: true,
      query: SearchQuery,
      responses: list,
      errors: ['identity_provider_unavailable'],
    },
    async (_req, res, { organizationId, query }) => {
      const page = pageOf(query);
      const caller = await files.caller(principalOf(res), organizationId);
      res.json(await files.search(caller, query.q, query.kind, query.scope ?? 'all', page));
    },
  );

  operation(
    router,
    {
      method: 'get',
      path: '/rag-picker',
      operationId: 'listRagPickerFiles',
      summary: 'The files the caller reads that are `RAG Available` (the chat’s RAG picker)',
      description: `${SCOPE_DOC} Paginated as the children.`,
      tags,
      organization: true,
      query: PickerQuery,
      responses: list,
      errors: ['identity_provider_unavailable'],
    },
    async (_req, res, { organizationId, query }) => {
      const page = pageOf(query);
      const caller = await files.caller(principalOf(res), organizationId);
      res.json(await files.ragPicker(caller, query.scope ?? 'all', page));
    },
  );

  operation(
    router,
    {
      method: 'post',
      path: '/',
      operationId: 'uploadFile',
      summary: 'Upload a file into a folder (`folder_id`) or the caller’s root (`null`)',
      description:
        'A `multipart/form-data` body: one file part `file`, the field `folder_id` (required: a folder’s id, or `null`), and an optional `name` (else the part’s filename). A `folder_path` field is refused (422 naming `folder_id`). The file answers `uploaded`; processing then takes it to `processing` and `RAG Available`, or `failed` with `status_reason`.',
      tags,
      organization: true,
      binaryBody: {
        mediaTypes: ['multipart/form-data'],
        description: 'The file and where it goes.',
        // Read by the handler (after the organization is chosen), straight into the blob store.
        parser: (_req, _res, next) => next(),
        form: UploadForm,
      },
      responses: { 201: { description: 'The file, `uploaded`.', schema: FileNodeSchema } },
      errors: [
        'folder_not_found',
        'file_access_denied',
        'file_name_conflict',
        'identity_provider_unavailable',
        ...FILE_STORE_ERRORS,
      ],
    },
    async (req, res, { organizationId }) => {
      const caller = await files.caller(principalOf(res), organizationId);
      const file = await fileStoreErrors(async () =>
        files.upload(caller, await readUpload(req, opts.blobs, opts.maxBytes)),
      );
      res.status(201).location(`/v1/files/${file.id}`).json(file);
    },
  );

  operation(
    router,
    {
      method: 'get',
      path: '/:id/content',
      operationId: 'downloadFile',
      summary: 'The file’s bytes (as an attachment)',
      description:
        'Always `application/octet-stream` with `Content-Disposition: attachment` and `nosniff`, whatever was uploaded: the API never serves user content as a page.',
      tags,
      organization: true,
      responses: { 200: { description: 'The bytes.', contentType: 'application/octet-stream' } },
      errors: [
        'file_not_found',
        'file_content_missing',
        'identity_provider_unavailable',
        ...FILE_STORE_ERRORS,
      ],
    },
    async (req, res, { organizationId }) => {
      const caller = await files.caller(principalOf(res), organizationId);
      const { node, stream } = await fileStoreErrors(() =>
        files.content(caller, req.params.id ?? ''),
      );
      res
        .status(200)
        .type('application/octet-stream')
        .set('X-Content-Type-Options', 'nosniff')
        .set('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(node.name)}`)
        .set('Content-Length', String(node.size_bytes ?? ''));
      // A store failing mid-stream (an S3 connection reset) ends the response short of its
      // Content-Length, which the client sees as an error; it never reaches the process.
      pipeline(stream, res).catch(() => undefined);
    },
  );

  nodeRoutes(router, files, 'file');
  return router;
}
