import { Type } from '@sinclair/typebox';
import { type Request, type Response, Router } from 'express';
import { organizationOf, principalOf, isPlatformAdmin } from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import { isUuid, Nullable, validator } from '@aiplane/lib/service';
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
const CreateBody = Type.Object(
  { ...fields, mcp_server_ids: Type.Optional(ServerIds) },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: fields.description,
    instructions: fields.instructions,
    model: fields.model,
    // Omitted or null keeps the list; [] clears it; a list replaces it (spec: Agent link).
    mcp_server_ids: Type.Optional(Nullable(ServerIds)),
  },
  { additionalProperties: false },
);
const parseCreate = validator(CreateBody);
const parseUpdate = validator(UpdateBody);

export interface AgentRecord {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  mcp_server_ids: string[];
  created_by: string;
  created_at: string;
  updated_at: string;
}

function agentRecord(a: Agent): AgentRecord {
  return {
    id: a.id,
    organization_id: a.organizationId,
    name: a.name,
    description: a.description,
    instructions: a.instructions,
    model: a.model,
    mcp_server_ids: a.mcpServerIds,
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

  const scope = (req: Request, res: Response) => {
    const principal = principalOf(res);
    return { principal, organizationId: organizationOf(req, principal) };
  };

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

  router.post('/', async (req, res) => {
    const body = parseCreate(req.body);
    const { principal, organizationId } = scope(req, res);
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
    });
    res.status(201).json(agentRecord(agent));
  });

  router.get('/', async (req, res) => {
    const { organizationId } = scope(req, res);
    const agents = (await opts.agents.list(organizationId)).map(agentRecord);
    res.json({ agents, count: agents.length });
  });

  router.get('/:config_id', async (req, res) => {
    const { organizationId } = scope(req, res);
    res.json(agentRecord(await find(organizationId, req.params.config_id ?? '')));
  });

  router.put('/:config_id', async (req, res) => {
    const { organizationId } = scope(req, res);
    const agent = await find(organizationId, req.params.config_id ?? '');
    mayModify(res, agent);
    const body = parseUpdate(req.body);
    const ids = body.mcp_server_ids ?? undefined;
    if (ids) await checkServers(organizationId, ids);
    const updated = await opts.agents.update(organizationId, agent.id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
      ...(body.model !== undefined ? { model: body.model } : {}),
      ...(ids !== undefined ? { mcpServerIds: ids } : {}),
    });
    if (!updated)
      throw new ApiError('agent_not_found', 'no agent of this organization has this id');
    res.json(agentRecord(updated));
  });

  router.delete('/:config_id', async (req, res) => {
    const { organizationId } = scope(req, res);
    const agent = await find(organizationId, req.params.config_id ?? '');
    mayModify(res, agent);
    await opts.agents.remove(organizationId, agent.id);
    res.status(204).end();
  });

  return router;
}
