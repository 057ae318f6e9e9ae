import type { TSchema } from '@sinclair/typebox';
import { type Router, Router as newRouter } from 'express';
import { principalOf } from '@aiplane/lib/auth';
import { operation, validator } from '@aiplane/lib/service';
import type { Files } from './files.js';
import {
  CreateFolderBody,
  FileNodeSchema,
  MoveBody,
  refuseFolderPath,
  RenameBody,
} from './files-schemas.js';
import type { NodeKind } from './files-store.js';
import { shareRoutes } from '../sharing/share-routes.js';

/** A body checker that refuses `folder_path` (naming `folder_id`) before the schema's rules. */
export function folderBody<S extends TSchema>(schema: S) {
  const check = validator(schema);
  return (body: unknown) => {
    refuseFolderPath(body);
    return check(body);
  };
}

const parseMove = folderBody(MoveBody);
const parseRename = validator(RenameBody);
const parseCreate = folderBody(CreateFolderBody);

/** What files and folders both answer on `/{id}`: read, rename, move, delete, shares. */
export function nodeRoutes(router: Router, files: Files, kind: NodeKind): void {
  const Kind = kind === 'file' ? 'File' : 'Folder';
  const tags = ['files'];
  const notFound = kind === 'file' ? ('file_not_found' as const) : ('folder_not_found' as const);
  const node = { description: `The ${kind}.`, schema: FileNodeSchema };

  operation(
    router,
    {
      method: 'get',
      path: '/:id',
      operationId: `get${Kind}`,
      summary: `One ${kind}, with the caller’s role on it`,
      tags,
      organization: true,
      responses: { 200: node },
      errors: [notFound, 'identity_provider_unavailable'],
    },
    async (req, res, { organizationId }) => {
      const caller = await files.caller(principalOf(res), organizationId);
      res.json(await files.get(caller, kind, req.params.id ?? ''));
    },
  );

  operation(
    router,
    {
      method: 'patch',
      path: '/:id',
      operationId: `rename${Kind}`,
      summary: `Rename a ${kind} (editor or owner)`,
      description: 'Names are unique in a folder, whatever their case (409 file_name_conflict).',
      tags,
      organization: true,
      serviceBody: RenameBody,
      responses: { 200: node },
      errors: [
        notFound,
        'file_access_denied',
        'file_name_conflict',
        'identity_provider_unavailable',
      ],
    },
    async (req, res, { organizationId, body }) => {
      const { name } = parseRename(body);
      const caller = await files.caller(principalOf(res), organizationId);
      res.json(await files.rename(caller, kind, req.params.id ?? '', name));
    },
  );

  operation(
    router,
    {
      method: 'post',
      path: '/:id/move',
      operationId: `move${Kind}`,
      summary: `Move a ${kind} into a folder (\`folder_id\`), or to the root (null)`,
      description:
        (kind === 'folder'
          ? 'A folder cannot move into itself or a descendant (409 folder_move_cycle). '
          : '') +
        'Needs editor on it and on the destination folder; to the root (its owner’s root) only an owner moves it. A body with the old `folder_path` is refused (422 naming `folder_id`).',
      tags,
      organization: true,
      serviceBody: MoveBody,
      responses: { 200: node },
      errors: [
        notFound,
        'folder_not_found',
        'file_access_denied',
        'file_name_conflict',
        ...(kind === 'folder' ? (['folder_move_cycle'] as const) : []),
        'identity_provider_unavailable',
      ],
    },
    async (req, res, { organizationId, body }) => {
      const { folder_id } = parseMove(body);
      const caller = await files.caller(principalOf(res), organizationId);
      res.json(await files.move(caller, kind, req.params.id ?? '', folder_id));
    },
  );

  operation(
    router,
    {
      method: 'delete',
      path: '/:id',
      operationId: `delete${Kind}`,
      summary:
        kind === 'folder'
          ? 'Delete a folder and everything in it (owner)'
          : 'Delete a file and its bytes (owner)',
      tags,
      organization: true,
      responses: { 204: { description: `The ${kind} is gone.` } },
      errors: [notFound, 'file_access_denied', 'identity_provider_unavailable'],
    },
    async (req, res, { organizationId }) => {
      const caller = await files.caller(principalOf(res), organizationId);
      await files.delete(caller, kind, req.params.id ?? '');
      res.status(204).end();
    },
  );

  // The share panel, open to the node's owners only (its owner, or an Owner by share).
  shareRoutes(router, {
    panel: {
      caller: (principal, organizationId) => files.caller(principal, organizationId),
      list: (caller, id) => files.shares(caller, kind, id),
      share: (caller, id, input) => files.share(caller, kind, id, input),
      unshare: (caller, id, type, target) => files.unshare(caller, kind, id, type, target),
    },
    noun: kind,
    Noun: Kind,
    param: 'id',
    tags,
    owners: 'its owners',
    errors: [notFound, 'file_access_denied', 'identity_provider_unavailable'],
    reach:
      kind === 'folder' ? 'The share reaches everything in the folder, at any depth.' : undefined,
  });
}

/** `/v1/folders` (spec: Endpoints, file and folder writes; docs/adr/0032). */
export function foldersRouter(opts: { files: Files }): Router {
  const router = newRouter();
  operation(
    router,
    {
      method: 'post',
      path: '/',
      operationId: 'createFolder',
      summary: 'Create a folder in a folder (`folder_id`) or at the caller’s root (null)',
      description:
        '`folder_id` is required (null for the root); a body with the old `folder_path` is refused (422 naming `folder_id`).',
      tags: ['files'],
      organization: true,
      serviceBody: CreateFolderBody,
      responses: { 201: { description: 'The folder.', schema: FileNodeSchema } },
      errors: [
        'folder_not_found',
        'file_access_denied',
        'file_name_conflict',
        'identity_provider_unavailable',
      ],
    },
    async (_req, res, { organizationId, body }) => {
      const { name, folder_id } = parseCreate(body);
      const caller = await opts.files.caller(principalOf(res), organizationId);
      const folder = await opts.files.createFolder(caller, name, folder_id);
      res.status(201).location(`/v1/folders/${folder.id}`).json(folder);
    },
  );
  nodeRoutes(router, opts.files, 'folder');
  return router;
}
