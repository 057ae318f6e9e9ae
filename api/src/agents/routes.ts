import { type Static, Type } from '@sinclair/typebox';
import { type Response, Router } from 'express';
import { principalOf, isPlatformAdmin } from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import { isUuid, ListOf, Nullable, operation } from '@aiplane/lib/service';
import { notProvisioned } from '../tenants/provisioning.js';
import type { Agent, AgentStore } from './store.js';

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
    created_by: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Agent' },
);
export type AgentRecord = Static<typeof AgentRecordSchema>;
const AgentListSchema = ListOf('agents', AgentRecordSchema, 'AgentList');

function agentRecord(a: Agent): AgentRecord {
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
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

export interface AgentsRouterOptions {
  agents: AgentStore;
  /** The entries of `ids` that are not live MCP servers of the organization. */
  foreignServerIds: (organizationId: string, ids: readonly string[]) => Promise<string[]>;
  /** Whether a live tenant records the organization (agents go with their tenant). */
  provisioned: (organizationId: string) => boolean;
}

/** `/v1/agents` (spec: "Agent link to MCP Servers"; other fields: docs/agents.md). */
export function agentsRouter(opts: AgentsRouterOptions): Router {
  const router = Router();

  const checkServers = async (organizationId: string, ids: readonly string[]) => {
    const bad = [
      ...ids.filter((id) => !isUuid(id)),
      ...(await opts.foreignServerIds(
        organizationId,
        ids.filter((id) => isUuid(id)),
      )),
    ];
    if (bad.length > 0) {
      const listed = ids.filter((id) => bad.includes(id));
      throw new ApiError(
        'agent_mcp_server_not_in_organization',
        `mcp_server_ids: not MCP servers of this organization: ${listed.map((id) => JSON.stringify(id)).join(', ')}`,
      );
    }
  };

  const find = async (organizationId: string, id: string) => {
    const agent = isUuid(id) ? await opts.agents.get(organizationId, id) : undefined;
    if (!agent) throw new ApiError('agent_not_found', 'no agent of this organization has this id');
    return agent;
  };

  const mayModify = (res: Response, agent: Agent) => {
    const principal = principalOf(res);
    if (agent.createdBy !== principal.userId && !isPlatformAdmin(principal)) {
      throw new ApiError(
        'agent_modification_denied',
        'only the agent’s creator or a platform admin may change or delete it',
      );
    }
  };

  const tags = ['agents'];
  const notFound = ['agent_not_found'] as const;

  operation(
    router,
    {
      method: 'post',
      path: '/',
      operationId: 'createAgent',
      summary: 'Create an agent',
      tags,
      organization: true,
      body: CreateAgentBody,
      responses: { 201: { description: 'The agent.', schema: AgentRecordSchema } },
      errors: ['organization_not_provisioned', 'agent_mcp_server_not_in_organization'],
    },
    async (_req, res, { body, organizationId }) => {
      const principal = principalOf(res);
      // The sweep deletes agents of organizations no live tenant records (McpServerCleanup).
      if (!opts.provisioned(organizationId)) throw notProvisioned(organizationId);
      const ids = body.mcp_server_ids ?? [];
      await checkServers(organizationId, ids);
      const agent = await opts.agents.create(organizationId, principal.userId, {
        name: body.name,
        description: body.description ?? null,
        instructions: body.instructions ?? null,
        model: body.model ?? null,
        mcpServerIds: ids,
        documentIds: (body.document_ids ?? []).map((d) => d.toLowerCase()),
      });
      res.status(201).json(agentRecord(agent));
    },
  );

  operation(
    router,
    {
      method: 'get',
      path: '/',
      operationId: 'listAgents',
      summary: 'The agents of the caller’s organization',
      tags,
      organization: true,
      responses: { 200: { description: 'The agents.', schema: AgentListSchema } },
    },
    async (_req, res, { organizationId }) => {
      const agents = (await opts.agents.list(organizationId)).map(agentRecord);
      res.json({ agents, count: agents.length });
    },
  );

  operation(
    router,
    {
      method: 'get',
      path: '/:config_id',
      operationId: 'getAgent',
      summary: 'One agent',
      tags,
      organization: true,
      responses: { 200: { description: 'The agent.', schema: AgentRecordSchema } },
      errors: notFound,
    },
    async (req, res, { organizationId }) => {
      res.json(agentRecord(await find(organizationId, req.params.config_id ?? '')));
    },
  );

  operation(
    router,
    {
      method: 'put',
      path: '/:config_id',
      operationId: 'updateAgent',
      summary: 'Change an agent (its creator or a platform admin)',
      tags,
      organization: true,
      body: UpdateAgentBody,
      responses: { 200: { description: 'The agent.', schema: AgentRecordSchema } },
      errors: [...notFound, 'agent_modification_denied', 'agent_mcp_server_not_in_organization'],
    },
    async (req, res, { body, organizationId }) => {
      const agent = await find(organizationId, req.params.config_id ?? '');
      mayModify(res, agent);
      const ids = body.mcp_server_ids ?? undefined;
      if (ids) await checkServers(organizationId, ids);
      const updated = await opts.agents.update(organizationId, agent.id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
        ...(body.model !== undefined ? { model: body.model } : {}),
        ...(ids !== undefined ? { mcpServerIds: ids } : {}),
        ...(body.document_ids != null
          ? { documentIds: body.document_ids.map((d) => d.toLowerCase()) }
          : {}),
      });
      if (!updated)
        throw new ApiError('agent_not_found', 'no agent of this organization has this id');
      res.json(agentRecord(updated));
    },
  );

  operation(
    router,
    {
      method: 'delete',
      path: '/:config_id',
      operationId: 'deleteAgent',
      summary: 'Delete an agent (its creator or a platform admin)',
      tags,
      organization: true,
      responses: { 204: { description: 'Deleted.' } },
      errors: [...notFound, 'agent_modification_denied'],
    },
    async (req, res, { organizationId }) => {
      const agent = await find(organizationId, req.params.config_id ?? '');
      mayModify(res, agent);
      await opts.agents.remove(organizationId, agent.id);
      res.status(204).end();
    },
  );

  return router;
}
