import type { Response, Router } from 'express';
import { type Principal, principalOf } from '@aiplane/lib/auth';
import type { ErrorCode } from '@aiplane/lib/errors';
import { operation } from '@aiplane/lib/service';
import {
  ShareBody,
  type ShareInput,
  ShareListSchema,
  ShareSchema,
  shareView,
} from './share-schemas.js';
import type { Share } from './share-store.js';

/**
 * What a share panel does for one kind of thing, as `C` (the caller as the service knows
 * them); each call refuses a caller who may not open the panel.
 */
export interface SharePanel<C> {
  caller(principal: Principal, organizationId: string): Promise<C>;
  list(caller: C, id: string): Promise<Share[]>;
  share(caller: C, id: string, input: ShareInput): Promise<Share>;
  unshare(caller: C, id: string, targetType: string, targetId: string): Promise<void>;
}

export interface SharePanelRoutes<C> {
  panel: SharePanel<C>;
  /** What is shared, in words (`file`, `folder`, `agent`) and in operation ids (`File`, …). */
  noun: string;
  Noun: string;
  /** The path parameter naming the thing (`id`, `config_id`). */
  param: string;
  tags: readonly string[];
  /** Who may open the panel, for the summaries. */
  owners: string;
  /** The refusals of the panel: absent thing, not allowed, identity provider down. */
  errors: readonly ErrorCode[];
  /** More about what a share gives (folders: it reaches the contents). */
  reach?: string;
}

/**
 * `/{id}/shares` of something shared with users or groups (docs/adr/0032, 0035): the share
 * panel. `GET` lists the shares, `POST {target_type, target_id, role}` shares (again: changes
 * the role), `DELETE …/shares/{target_type}/{target_id}` removes one; access follows at once.
 */
export function shareRoutes<C>(router: Router, o: SharePanelRoutes<C>): void {
  const base = `/:${o.param}/shares`;
  const idOf = (params: Record<string, string>) => params[o.param] ?? '';
  const callerOf = (res: Response, organizationId: string) =>
    o.panel.caller(principalOf(res), organizationId);

  operation(
    router,
    {
      method: 'get',
      path: base,
      operationId: `list${o.Noun}Shares`,
      summary: `The shares of a ${o.noun} (${o.owners} only)`,
      tags: o.tags,
      organization: true,
      responses: { 200: { description: 'The shares.', schema: ShareListSchema } },
      errors: o.errors,
    },
    async (req, res, { organizationId }) => {
      const caller = await callerOf(res, organizationId);
      const shares = (await o.panel.list(caller, idOf(req.params))).map(shareView);
      res.json({ shares, count: shares.length });
    },
  );

  operation(
    router,
    {
      method: 'post',
      path: base,
      operationId: `share${o.Noun}`,
      summary: `Share a ${o.noun} with a user or a group as viewer, editor or owner`,
      description: [o.reach, 'Sharing again with the same user or group changes the role.']
        .filter((t) => t !== undefined)
        .join(' '),
      tags: o.tags,
      organization: true,
      body: ShareBody,
      responses: { 200: { description: 'The share.', schema: ShareSchema } },
      errors: o.errors,
    },
    async (req, res, { organizationId, body }) => {
      const caller = await callerOf(res, organizationId);
      res.json(shareView(await o.panel.share(caller, idOf(req.params), body)));
    },
  );

  operation(
    router,
    {
      method: 'delete',
      path: `${base}/:target_type/:target_id`,
      operationId: `unshare${o.Noun}`,
      summary: `Remove a share of a ${o.noun}; the access it gave ends at once`,
      tags: o.tags,
      organization: true,
      responses: { 204: { description: 'The share is gone.' } },
      errors: [...o.errors, 'share_not_found'],
    },
    async (req, res, { organizationId }) => {
      const caller = await callerOf(res, organizationId);
      const p = req.params;
      await o.panel.unshare(caller, idOf(p), p.target_type ?? '', p.target_id ?? '');
      res.status(204).end();
    },
  );
}
