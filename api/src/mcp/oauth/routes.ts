import { Type } from '@sinclair/typebox';
import { Router } from 'express';
import type { TenantLifecycle } from '@aiplane/crds';
import type { ResourceCache } from '@aiplane/lib';
import { operation } from '@aiplane/lib/service';
import { callerScope, findCallerServer, findInOrganization } from '../caller-server.js';
import type { McpOAuthLinking } from './oauth-linking.js';
import type { McpServerStore } from '../server-store.js';

export const OAuthCallbackBody = Type.Object(
  {
    state: Type.String({ minLength: 1, maxLength: 512 }),
    code: Type.String({ minLength: 1, maxLength: 4096 }),
    /** The authorization response's `iss` (RFC 9207), when the return address carried one. */
    iss: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  },
  { additionalProperties: false, title: 'McpOAuthCallback' },
);
const OAuthStartSchema = Type.Object(
  {
    authorize_url: Type.String({ description: 'where to send the user’s browser' }),
    state: Type.String(),
  },
  { title: 'McpOAuthStart' },
);
const OAuthLinkedSchema = Type.Object(
  { server_id: Type.String({ description: 'the server the credential is now linked for' }) },
  { title: 'McpOAuthLinked' },
);

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
  const tags = ['mcp-servers'];

  operation(
    router,
    {
      method: 'post',
      path: '/servers/:server_id/credential/oauth',
      operationId: 'startMcpOAuth',
      summary: 'Start linking the caller’s credential for a server by OAuth',
      tags,
      organization: true,
      responses: {
        200: { description: 'Where to authorize, and the state.', schema: OAuthStartSchema },
      },
      errors: [
        'mcp_server_access_denied',
        'mcp_server_does_not_use_oauth',
        'mcp_oauth_upstream_error',
        'mcp_oauth_not_configured',
      ],
    },
    async (req, res) => {
      const { server, userId, organizationId } = await findCallerServer(req, res, opts);
      res.json(await opts.linking.start(server, { userId, organizationId }));
    },
  );

  operation(
    router,
    {
      method: 'post',
      path: '/credential/oauth/callback',
      operationId: 'completeMcpOAuth',
      summary: 'Complete OAuth linking with what the authorization server returned',
      description:
        'Called by the portal (as the signed-in user) with the `state`, `code` and `iss` of the return address; not the browser redirect target itself, so it is authenticated like every API route.',
      tags,
      organization: true,
      body: OAuthCallbackBody,
      responses: { 200: { description: 'Linked.', schema: OAuthLinkedSchema } },
      errors: ['mcp_oauth_state_invalid', 'mcp_oauth_upstream_error'],
    },
    async (req, res, { body }) => {
      const { state, code, iss } = body;
      const { userId, organizationId } = callerScope(req, res, opts.tenants);
      const serverId = await opts.linking.complete(
        { state, code, ...(iss === undefined ? {} : { iss }), userId, organizationId },
        async (id, organization) =>
          (await findInOrganization(opts, organization, id)) !== undefined,
      );
      res.json({ server_id: serverId });
    },
  );

  return router;
}
