import { type Static, Type } from '@sinclair/typebox';
import { type Response, Router } from 'express';
import { principalOf } from '@aiplane/lib/auth';
import { ListOf, Nullable, operation } from '@aiplane/lib/service';
import { roleOfRank } from '../sharing/roles.js';
import { shareRoutes } from '../sharing/share-routes.js';
import { RoleSchema } from '../sharing/share-schemas.js';
import type { Agents } from './agents.js';
import type { SeenAgent } from './store.js';

/** The most MCP servers one agent may reference. */
export const MAX_AGENT_SERVERS = 64;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  instructions: Type.Optional(Nullable(Type.String({ maxLength: 32000 }))),
  model: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
};
const ServerIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: MAX_AGENT_SERVERS,
  uniqueItems: true,
});
/** The most files one agent may take its context from. */
export const MAX_AGENT_DOCUMENTS = 100;
const DocumentIds = Type.Array(Type.String({ format: 'uuid' }), {
  maxItems: MAX_AGENT_DOCUMENTS,
  uniqueItems: true,
  description:
    'files whose passages the messages API gives the model as context, read with the caller’s access (docs/adr/0033)',
});
export const CreateAgentBody = Type.Object(
  { ...fields, mcp_server_ids: Type.Optional(ServerIds), document_ids: Type.Optional(DocumentIds) },
  { additionalProperties: false, title: 'CreateAgent' },
);
export const UpdateAgentBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: fields.description,
    instructions: fields.instructions,
    model: fields.model,
    // Omitted or null keeps the list; [] clears it; a list replaces it (spec: Agent link).
    mcp_server_ids: Type.Optional(Nullable(ServerIds)),
    // Omitted or null keeps the list; [] clears it; a list replaces it.
    document_ids: Type.Optional(Nullable(DocumentIds)),
  },
  { additionalProperties: false, title: 'UpdateAgent' },
);

export const AgentRecordSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    organization_id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    instructions: Nullable(Type.String()),
    model: Nullable(Type.String()),
    mcp_server_ids: Type.Array(Type.String()),
    document_ids: Type.Array(Type.String({ format: 'uuid' })),
    /** Its creator: an owner of it for as long as it exists. */
    created_by: Type.String(),
    /** The caller's role on it: creator or organization admin (owner), else their best share. */
    role: RoleSchema,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Agent' },
);
export type AgentRecord = Static<typeof AgentRecordSchema>;
const AgentListSchema = ListOf('agents', AgentRecordSchema, 'AgentList');

function agentRecord({ agent: a, rank }: SeenAgent): AgentRecord {
  return {
    id: a.id,
    organization_id: a.organizationId,
    name: a.name,
    description: a.description,
    instructions: a.instructions,
    model: a.model,
    mcp_server_ids: a.mcpServerIds,
    document_ids: a.documentIds,
    created_by: a.createdBy,
    role: roleOfRank(rank) ?? 'viewer',
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

export interface AgentsRouterOptions {
  agents: Agents;
}

/**
 * `/v1/agents` (spec: "Agent link to MCP Servers"; sharing: core-api.md, Sharing roles; other
 * fields: docs/adr/0029, 0033, 0035). Every route sees only the agents the caller may see.
 */
export function agentsRouter({ agents }: AgentsRouterOptions): Router {
  const router = Router();
  const viewer = (res: Response, organizationId: string) =>
    agents.viewer(principalOf(res), organizationId);

  const tags = ['agents'];
  const notFound = ['agent_not_found', 'identity_provider_unavailable'] as const;

  operation(
    router,
    {
      method: 'post',
      path: '/',
      operationId: 'createAgent',
      summary: 'Create an agent (its creator is its owner)',
      tags,
      organization: true,
      body: CreateAgentBody,
      responses: { 201: { description: 'The agent.', schema: AgentRecordSchema } },
      errors: [
        'organization_not_provisioned',
        'agent_mcp_server_not_in_organization',
        'identity_provider_unavailable',
      ],
    },
    async (_req, res, { body, organizationId }) => {
      const created = await agents.create(await viewer(res, organizationId), {
        name: body.name,
        description: body.description ?? null,
        instructions: body.instructions ?? null,
        model: body.model ?? null,
        mcpServerIds: body.mcp_server_ids ?? [],
        documentIds: (body.document_ids ?? []).map((d) => d.toLowerCase()),
      });
      res.status(201).json(agentRecord(created));
    },
  );

  operation(
    router,
    {
      method: 'get',
      path: '/',
      operationId: 'listAgents',
      summary: 'The agents of the caller’s organization that the caller may see',
      description:
        'Their own, those shared with them or a group of theirs, or every agent of the organization for an organization admin.',
      tags,
      organization: true,
      responses: { 200: { description: 'The agents.', schema: AgentListSchema } },
      errors: ['identity_provider_unavailable'],
    },
    async (_req, res, { organizationId }) => {
      const seen = (await agents.list(await viewer(res, organizationId))).map(agentRecord);
      res.json({ agents: seen, count: seen.length });
    },
  );

  operation(
    router,
    {
      method: 'get',
      path: '/:config_id',
      operationId: 'getAgent',
      summary: 'One agent the caller may see',
      tags,
      organization: true,
      responses: { 200: { description: 'The agent.', schema: AgentRecordSchema } },
      errors: notFound,
    },
    async (req, res, { organizationId }) => {
      const seen = await agents.get(await viewer(res, organizationId), req.params.config_id ?? '');
      res.json(agentRecord(seen));
    },
  );

  operation(
    router,
    {
      method: 'put',
      path: '/:config_id',
      operationId: 'updateAgent',
      summary: 'Change an agent (editor or owner)',
      tags,
      organization: true,
      body: UpdateAgentBody,
      responses: { 200: { description: 'The agent.', schema: AgentRecordSchema } },
      errors: [...notFound, 'agent_modification_denied', 'agent_mcp_server_not_in_organization'],
    },
    async (req, res, { body, organizationId }) => {
      const ids = body.mcp_server_ids ?? undefined;
      const updated = await agents.update(
        await viewer(res, organizationId),
        req.params.config_id ?? '',
        {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
          ...(body.model !== undefined ? { model: body.model } : {}),
          ...(ids !== undefined ? { mcpServerIds: ids } : {}),
          ...(body.document_ids != null
            ? { documentIds: body.document_ids.map((d) => d.toLowerCase()) }
            : {}),
        },
      );
      res.json(agentRecord(updated));
    },
  );

  operation(
    router,
    {
      method: 'delete',
      path: '/:config_id',
      operationId: 'deleteAgent',
      summary: 'Delete an agent and its shares (owner)',
      tags,
      organization: true,
      responses: { 204: { description: 'Deleted.' } },
      errors: [...notFound, 'agent_modification_denied'],
    },
    async (req, res, { organizationId }) => {
      await agents.delete(await viewer(res, organizationId), req.params.config_id ?? '');
      res.status(204).end();
    },
  );

  // The share panel (spec: only the GPT owner or an organization admin opens it).
  shareRoutes(router, {
    panel: {
      caller: (principal, organizationId) => agents.viewer(principal, organizationId),
      list: (viewer, id) => agents.shares(viewer, id),
      share: (viewer, id, input) => agents.share(viewer, id, input),
      unshare: (viewer, id, type, target) => agents.unshare(viewer, id, type, target),
    },
    noun: 'agent',
    Noun: 'Agent',
    param: 'config_id',
    tags,
    owners: 'its owners or an organization admin',
    errors: [...notFound, 'agent_share_panel_denied'],
  });

  return router;
}
