import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import type { TenantLifecycle } from '@aiplane/crds';
import type { ResourceCache } from '@aiplane/lib';
import { validator } from '@aiplane/lib/service';
import { callerScope, findCallerServer, findInOrganization } from '../caller-server.js';
import type { McpOAuthLinking } from './oauth-linking.js';
import type { McpServerStore } from '../server-store.js';

const CallbackBody = Type.Object(
  {
    state: Type.String({ minLength: 1, maxLength: 512 }),
    code: Type.String({ minLength: 1, maxLength: 4096 }),
    /** The authorization response's `iss` (RFC 9207), when the return address carried one. */
    iss: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  },
  { additionalProperties: false },
);
const parseCallback = validator(CallbackBody);

export interface McpOAuthRouterOptions {
  servers: McpServerStore;
  tenants: ResourceCache<TenantLifecycle>;
  linking: McpOAuthLinking;
}

/**
 * OAuth linking of upstream credentials, mounted at `/v1/mcp` (spec: "MCP management"):
 * `POST /servers/{server_id}/credential/oauth` and `POST /credential/oauth/callback`.
 */
export function mcpOAuthRouter(opts: McpOAuthRouterOptions): Router {
  const router = Router();

  router.post('/servers/:server_id/credential/oauth', async (req, res) => {
    const { server, userId, organizationId } = await findCallerServer(req, res, opts);
    res.json(await opts.linking.start(server, { userId, organizationId }));
  });

  router.post('/credential/oauth/callback', async (req, res) => {
    const { state, code, iss } = parseCallback(req.body);
    const { userId, organizationId } = callerScope(req, res, opts.tenants);
    const serverId = await opts.linking.complete(
      { state, code, ...(iss === undefined ? {} : { iss }), userId, organizationId },
      async (id, organization) => (await findInOrganization(opts, organization, id)) !== undefined,
    );
    res.json({ server_id: serverId });
  });

  return router;
}
