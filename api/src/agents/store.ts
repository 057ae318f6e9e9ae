import type { Knex } from 'knex';
import { notLive, type LiveScope } from '@aiplane/lib/store';
import { AGENT_SHARES, type Caller, ownGrantSql } from '../sharing/roles.js';

export interface Agent {
  id: string;
  organizationId: string;
  createdBy: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  mcpServerIds: string[];
  /** Files whose chunks are the agent's retrieval context (ADR 0033). */
  documentIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  organization_id: string;
  created_by: string;
  name: string;
  description: string | null;
  instructions: string | null;
  model: string | null;
  mcp_server_ids: string[];
  document_ids: string[];
  created_at: Date;
  updated_at: Date;
}

/**
 * Who looks at agents: a caller with their groups, and whether they administer the
 * organization (an organization admin sees every agent of it, as an owner).
 */
export interface AgentViewer extends Caller {
  admin: boolean;
}

/** An agent the viewer may see, with their role on it as a rank (1 viewer … 3 owner). */
export interface SeenAgent {
  agent: Agent;
  rank: number;
}

export type AgentFields = Pick<Agent, 'name' | 'description' | 'instructions' | 'model'> & {
  mcpServerIds: string[];
  documentIds?: string[];
};

const toAgent = (r: Row): Agent => ({
  id: r.id,
  organizationId: r.organization_id,
  createdBy: r.created_by,
  name: r.name,
  description: r.description,
  instructions: r.instructions,
  model: r.model,
  mcpServerIds: r.mcp_server_ids,
  documentIds: r.document_ids,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

type RankedRow = Row & { rank: number };

const toSeen = (r: RankedRow): SeenAgent => ({
  agent: toAgent(r),
  rank: Number(r.rank),
});

const toRow = (f: Partial<AgentFields>): Record<string, unknown> => ({
  ...(f.name !== undefined ? { name: f.name } : {}),
  ...(f.description !== undefined ? { description: f.description } : {}),
  ...(f.instructions !== undefined ? { instructions: f.instructions } : {}),
  ...(f.model !== undefined ? { model: f.model } : {}),
  ...(f.mcpServerIds !== undefined ? { mcp_server_ids: JSON.stringify(f.mcpServerIds) } : {}),
  ...(f.documentIds !== undefined ? { document_ids: JSON.stringify(f.documentIds) } : {}),
});

/** Agents of organizations (PostgreSQL); every read and write is scoped by organization. */
export class AgentStore {
  constructor(private readonly db: Knex) {}

  async create(organizationId: string, createdBy: string, fields: AgentFields): Promise<Agent> {
    const [row] = await this.db('agents')
      .insert({ organization_id: organizationId, created_by: createdBy, ...toRow(fields) })
      .returning<Row[]>('*');
    return toAgent(row as Row);
  }

  /** The agents of the organization the viewer may see, newest first (docs/adr/0035). */
  async visible(viewer: AgentViewer): Promise<SeenAgent[]> {
    const rows = await this.seen(viewer).orderBy([
      { column: 'a.created_at', order: 'desc' },
      { column: 'a.id' },
    ]);
    return rows.map(toSeen);
  }

  /** One agent of the organization, when the viewer may see it. */
  async visibleOne(viewer: AgentViewer, id: string): Promise<SeenAgent | undefined> {
    const row = await this.seen(viewer).where('a.id', id).first();
    return row ? toSeen(row) : undefined;
  }

  /**
   * `agents a` of the viewer's organization with their `rank`, in SQL: the creator is owner,
   * a share reaching the viewer or one of their groups gives its role, an organization admin
   * is owner of all; the rest (rank 0) is left out.
   */
  private seen(viewer: AgentViewer): Knex.QueryBuilder<Row, RankedRow[]> {
    const rank = viewer.admin
      ? this.db.raw('3')
      : ownGrantSql(this.db, AGENT_SHARES, 'a', 'created_by', viewer);
    const q = this.db<Row>('agents as a')
      .where('a.organization_id', viewer.organizationId)
      .select<RankedRow[]>(this.db.raw('a.*, ? as rank', [rank]));
    return viewer.admin ? q : q.where(this.db.raw('? > 0', [rank]));
  }

  /** Applies the given fields; undefined when the agent is gone. */
  async update(
    organizationId: string,
    id: string,
    fields: Partial<AgentFields>,
  ): Promise<Agent | undefined> {
    const [row] = await this.db('agents')
      .where({ organization_id: organizationId, id })
      .update({ ...toRow(fields), updated_at: this.db.fn.now() })
      .returning<Row[]>('*');
    return row ? toAgent(row) : undefined;
  }

  async remove(organizationId: string, id: string): Promise<boolean> {
    return (await this.db('agents').where({ organization_id: organizationId, id }).delete()) > 0;
  }

  /** Deletes every agent of an organization (its tenant was deleted); answers how many. */
  async removeOrganization(organizationId: string): Promise<number> {
    return this.db('agents').where({ organization_id: organizationId }).delete();
  }

  /**
   * Deletes the agents of organizations that are not live, unchanged for the grace period (an
   * agent just saved belongs to an organization some replica saw live a moment ago); answers how
   * many. The live ids are one JSON parameter (see `orphan-filter.ts`).
   */
  async removeOrganizationsNotIn(scope: LiveScope): Promise<number> {
    return this.db('agents')
      .where(notLive(this.db, { key: 'organization_id', time: 'updated_at' }, scope))
      .delete();
  }

  /** Drops a deleted MCP server from every agent of its organization. */
  async forgetServer(organizationId: string, serverId: string): Promise<void> {
    await this.db('agents')
      .where({ organization_id: organizationId })
      .whereRaw('mcp_server_ids \\? ?', [serverId])
      .update({
        mcp_server_ids: this.db.raw('mcp_server_ids - ?::text', [serverId]),
        updated_at: this.db.fn.now(),
      });
  }

  /**
   * Drops every reference to a server that is not live from agents unchanged for the grace
   * period (an agent just saved may name a server the caller's list does not show yet), keeping
   * the order of the others; answers how many agents changed. An agent saved meanwhile has a
   * new `updated_at` and is skipped (the condition is checked again on update).
   *
   * The live ids are one JSON parameter (see `orphan-filter.ts`). Both sides are materialized
   * CTEs so that the references are hash-joined to the live set ONCE: joined inside the
   * per-agent lateral, the planner (which guesses 100 rows for a set-returning function) scans
   * the live set again for every agent, agents × ids.
   */
  async forgetServersNotIn(scope: LiveScope): Promise<number> {
    const result = await this.db.raw<{ rowCount: number | null }>(
      `with live(id) as materialized (select jsonb_array_elements_text(?::jsonb)),
       refs as materialized (
         select a.id as agent, ref.id, ref.n
         from agents a
         cross join lateral jsonb_array_elements_text(a.mcp_server_ids) with ordinality
           as ref(id, n)
         where a.updated_at < now() - make_interval(secs => ?)
       ),
       changed as (
         select refs.agent,
           coalesce(jsonb_agg(refs.id order by refs.n) filter (where live.id is not null), '[]')
             as kept
         from refs left join live on live.id = refs.id
         group by refs.agent
         having bool_or(live.id is null)
       )
       update agents set mcp_server_ids = changed.kept, updated_at = now()
       from changed
       where agents.id = changed.agent and agents.updated_at < now() - make_interval(secs => ?)`,
      [JSON.stringify(scope.live), scope.graceSeconds, scope.graceSeconds],
    );
    return result.rowCount ?? 0;
  }
}
