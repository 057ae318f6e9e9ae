import type { Router } from 'express';
import { principalOf } from '@aiplane/lib/auth';
import { operation } from '@aiplane/lib/service';
import type { Files } from './files.js';
import { ShareBody, ShareListSchema, ShareSchema, shareView } from './files-schemas.js';
import type { NodeKind } from './files-store.js';

/**
 * `/{id}/shares` of files or folders (docs/adr/0032): the share panel, open to the node's
 * owners only (its owner, or an Owner by share). A folder's shares reach everything in it.
 */
export function shareRoutes(router: Router, files: Files, kind: NodeKind): void {
  const Kind = kind === 'file' ? 'File' : 'Folder';
  const tags = ['files'];
  const notFound = kind === 'file' ? ('file_not_found' as const) : ('folder_not_found' as const);

  operation(
    router,
    {
      method: 'get',
      path: '/:id/shares',
      operationId: `list${Kind}Shares`,
      summary: `The shares of a ${kind} (its owners only)`,
      tags,
      organization: true,
      responses: { 200: { description: 'The shares.', schema: ShareListSchema } },
      errors: [notFound, 'file_access_denied', 'identity_provider_unavailable'],
    },
    async (req, res, { organizationId }) => {
      const caller = await files.caller(principalOf(res), organizationId);
      const shares = (await files.shares(caller, kind, req.params.id ?? '')).map(shareView);
      res.json({ shares, count: shares.length });
    },
  );

  operation(
    router,
    {
      method: 'post',
      path: '/:id/shares',
      operationId: `share${Kind}`,
      summary: `Share a ${kind} with a user or a group as viewer, editor or owner`,
      description:
        kind === 'folder'
          ? 'The share reaches everything in the folder, at any depth. Sharing again with the same user or group changes the role.'
          : 'Sharing again with the same user or group changes the role.',
      tags,
      organization: true,
      body: ShareBody,
      responses: { 200: { description: 'The share.', schema: ShareSchema } },
      errors: [notFound, 'file_access_denied', 'identity_provider_unavailable'],
    },
    async (req, res, { organizationId, body }) => {
      const caller = await files.caller(principalOf(res), organizationId);
      res.json(shareView(await files.share(caller, kind, req.params.id ?? '', body)));
    },
  );

  operation(
    router,
    {
      method: 'delete',
      path: '/:id/shares/:target_type/:target_id',
      operationId: `unshare${Kind}`,
      summary: `Remove a share of a ${kind}; the access it gave ends at once`,
      tags,
      organization: true,
      responses: { 204: { description: 'The share is gone.' } },
      errors: [notFound, 'file_access_denied', 'share_not_found', 'identity_provider_unavailable'],
    },
    async (req, res, { organizationId }) => {
      const caller = await files.caller(principalOf(res), organizationId);
      const p = req.params;
      await files.unshare(caller, kind, p.id ?? '', p.target_type ?? '', p.target_id ?? '');
      res.status(204).end();
    },
  );
}
