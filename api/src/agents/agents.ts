import { isOrganizationAdmin, type Principal } from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import { isUuid } from '@aiplane/lib/service';
import type { SharingDirectory } from '../sharing/directory.js';
import { ROLE_RANK, type Role, roleName } from '../sharing/roles.js';
import type { ShareInput } from '../sharing/share-schemas.js';
import type { Share } from '../sharing/share-store.js';
import { callerIn, type Shares } from '../sharing/shares.js';
import { notProvisioned } from '../tenants/provisioning.js';
import type { Agent, AgentFields, AgentStore, AgentViewer, SeenAgent } from './store.js';

export interface AgentsOptions {
  store: AgentStore;
  /** The agents' share panels (agent_shares). */
  shares: Shares;
  /** The identity provider's groups: which group shares reach a caller. */
  directory: SharingDirectory;
  /** The entries of `ids` that are not live MCP servers of the organization. */
  foreignServerIds: (organizationId: string, ids: readonly string[]) => Promise<string[]>;
  /** Whether a live tenant records the organization (agents go with their tenant). */
  provisioned: (organizationId: string) => boolean;
}

const notFound = (id: string) =>
  new ApiError('agent_not_found', `no agent you may see in this organization has id ${id}`);

/**
 * Agents (Custom GPTs) shared with users and groups as viewer (use), editor (use and change) or
 * owner (full control: delete, the share panel); docs/adr/0035. The creator is owner; an
 * organization admin sees every agent of the organization as an owner. An agent the caller may
 * not see is absent (404) everywhere, the messages API included; a change their role does not
 * allow is 403.
 */
export class Agents {
  constructor(private readonly o: AgentsOptions) {}

  /** The caller acting in an organization (their groups are not needed when they administer it). */
  async viewer(principal: Principal, organizationId: string): Promise<AgentViewer> {
    if (isOrganizationAdmin(principal, organizationId)) {
      return { organizationId, userId: principal.userId, groupIds: [], admin: true };
    }
    return { ...(await callerIn(this.o.directory, principal, organizationId)), admin: false };
  }

  list(viewer: AgentViewer): Promise<SeenAgent[]> {
    return this.o.store.visible(viewer);
  }

  /** An agent the viewer may see; 404 else. */
  async get(viewer: AgentViewer, id: string): Promise<SeenAgent> {
    const seen = isUuid(id) ? await this.o.store.visibleOne(viewer, id.toLowerCase()) : undefined;
    if (!seen) throw notFound(id);
    return seen;
  }

  /** Creates an agent in a provisioned organization; its creator is its owner. */
  async create(viewer: AgentViewer, fields: AgentFields): Promise<SeenAgent> {
    // The sweep deletes agents of organizations no live tenant records (McpServerCleanup).
    if (!this.o.provisioned(viewer.organizationId)) throw notProvisioned(viewer.organizationId);
    await this.checkServers(viewer.organizationId, fields.mcpServerIds);
    const agent = await this.o.store.create(viewer.organizationId, viewer.userId, fields);
    return { agent, rank: ROLE_RANK.owner };
  }

  /** Changes an agent (editor or better). */
  async update(viewer: AgentViewer, id: string, fields: Partial<AgentFields>): Promise<SeenAgent> {
    const { agent, rank } = await this.holding(viewer, id, 'editor', 'changing the agent');
    if (fields.mcpServerIds) await this.checkServers(viewer.organizationId, fields.mcpServerIds);
    const updated = await this.o.store.update(viewer.organizationId, agent.id, fields);
    if (!updated) throw notFound(id);
    return { agent: updated, rank };
  }

  /** Deletes an agent and its shares (owner). */
  async delete(viewer: AgentViewer, id: string): Promise<void> {
    const { agent } = await this.holding(viewer, id, 'owner', 'deleting the agent');
    await this.o.store.remove(viewer.organizationId, agent.id);
  }

  /** The share panel: the agent's owners and organization admins only. */
  async shares(viewer: AgentViewer, id: string): Promise<Share[]> {
    return this.o.shares.list((await this.panel(viewer, id)).id);
  }

  /** Shares the agent with a member or a group of the organization (or changes the role). */
  async share(viewer: AgentViewer, id: string, input: ShareInput): Promise<Share> {
    return this.o.shares.put(viewer, (await this.panel(viewer, id)).id, input);
  }

  /** Removes a share; access through it ends with this answer. */
  async unshare(viewer: AgentViewer, id: string, targetType: string, targetId: string) {
    await this.o.shares.remove((await this.panel(viewer, id)).id, 'agent', targetType, targetId);
  }

  /** An agent the caller may use (any role), for the messages API; undefined else. */
  async usable(organizationId: string, principal: Principal, id: string) {
    if (!isUuid(id)) return undefined;
    const seen = await this.o.store.visibleOne(
      await this.viewer(principal, organizationId),
      id.toLowerCase(),
    );
    return seen?.agent;
  }

  /** Every agent the caller may use, newest first, for the messages API's model list. */
  async usableList(organizationId: string, principal: Principal): Promise<Agent[]> {
    const seen = await this.o.store.visible(await this.viewer(principal, organizationId));
    return seen.map((s) => s.agent);
  }

  /** The agent, when the viewer holds at least `role` on it; 404 or 403 else. */
  private async holding(viewer: AgentViewer, id: string, role: Role, doing: string) {
    const seen = await this.get(viewer, id);
    if (seen.rank < ROLE_RANK[role]) {
      throw new ApiError(
        'agent_modification_denied',
        `${doing} needs the ${role} role on it; yours is ${roleName(seen.rank)}`,
      );
    }
    return seen;
  }

  /** The agent whose share panel the viewer opens (owner or organization admin); 404 or 403. */
  private async panel(viewer: AgentViewer, id: string): Promise<Agent> {
    const seen = await this.get(viewer, id);
    if (seen.rank < ROLE_RANK.owner) {
      throw new ApiError(
        'agent_share_panel_denied',
        `only the agent’s owners or an organization admin may see or change its shares; your role is ${roleName(seen.rank)}`,
      );
    }
    return seen.agent;
  }

  private async checkServers(organizationId: string, ids: readonly string[]) {
    const valid = ids.filter((id) => isUuid(id));
    const foreign = new Set([
      ...ids.filter((id) => !isUuid(id)),
      ...(await this.o.foreignServerIds(organizationId, valid)),
    ]);
    if (foreign.size > 0) {
      const listed = ids.filter((id) => foreign.has(id));
      throw new ApiError(
        'agent_mcp_server_not_in_organization',
        `mcp_server_ids: not MCP servers of this organization: ${listed.map((id) => JSON.stringify(id)).join(', ')}`,
      );
    }
  }
}
