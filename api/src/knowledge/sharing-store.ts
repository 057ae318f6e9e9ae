import type { Knex } from 'knex';

export const ROLES = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof ROLES)[number];
export const TARGET_TYPES = ['user', 'group'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/** Viewer 1, editor 2, owner 3; 0 reads nothing. */
export const ROLE_RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };
export const roleOfRank = (rank: number): Role | undefined => ROLES[rank - 1];

/** Who asks: the user, the identity-provider groups they are in, the organization they act in. */
export interface Caller {
  organizationId: string;
  userId: string;
  groupIds: readonly string[];
}

export interface ShareRow {
  node_id: string;
  organization_id: string;
  target_type: TargetType;
  target_id: string;
  role: Role;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

const RANK_SQL = `case s.role when 'owner' then 3 when 'editor' then 2 else 1 end`;
/** The shares that reach the caller (bindings: user id, group ids). */
const REACHES_SQL = `((s.target_type = 'user' and s.target_id = ?) or (s.target_type = 'group' and s.target_id = any(?::text[])))`;

/**
 * Adds `readable(id, role)` to `q`: every node of the organization the caller may read, with
 * the best role rank they hold on it (docs/adr/0032). Grants are the caller's own nodes
 * (owner) and the shares that reach them or their groups; a grant on a folder reaches
 * everything beneath it (the walk down is a recursive CTE; `union` stops at rows already
 * found).
 */
export function withReadable(q: Knex.QueryBuilder, db: Knex, caller: Caller): Knex.QueryBuilder {
  return q
    .withRecursive(
      'grants',
      ['id', 'role'],
      db.raw(
        `select n.id, 3 from knowledge_nodes n where n.organization_id = ? and n.owner_id = ?
         union all
         select s.node_id, ${RANK_SQL} from knowledge_shares s
          where s.organization_id = ? and ${REACHES_SQL}`,
        [
          caller.organizationId,
          caller.userId,
          caller.organizationId,
          caller.userId,
          [...caller.groupIds],
        ],
      ),
    )
    .withRecursive(
      'walk',
      ['id', 'role'],
      db.raw(
        `select id, role from grants
         union
         select c.id, w.role from knowledge_nodes c join walk w on c.parent_id = w.id`,
      ),
    )
    .with('readable', ['id', 'role'], db.raw('select id, max(role) from walk group by id'));
}

/**
 * The SQL of a node's own grant to the caller, for a node aliased `alias`: 3 when they own it,
 * else their best share on it, else 0 (bindings: user id, user id, group ids).
 */
export function ownGrantSql(db: Knex, alias: string, caller: Caller): Knex.Raw {
  return db.raw(
    `greatest(case when ??.owner_id = ? then 3 else 0 end,
       coalesce((select max(${RANK_SQL}) from knowledge_shares s
                  where s.node_id = ??.id and ${REACHES_SQL}), 0))`,
    [alias, caller.userId, alias, caller.userId, [...caller.groupIds]],
  );
}

/** Shares of nodes (the share panel) and the caller's role on one node. */
export class SharingStore {
  constructor(private readonly db: Knex) {}

  /**
   * The caller's role on a node of the organization as a rank (0: they may not read it): the
   * best grant on the node or any folder above it (the walk up is a recursive CTE).
   */
  async rankOn(caller: Caller, nodeId: string, trx: Knex = this.db): Promise<number> {
    const { rows } = await trx.raw<{ rows: { rank: number | null }[] }>(
      `with recursive chain(id, parent_id, owner_id) as (
         select id, parent_id, owner_id from knowledge_nodes where id = ? and organization_id = ?
         union all
         select p.id, p.parent_id, p.owner_id from knowledge_nodes p join chain c on p.id = c.parent_id
       )
       select max(?) as rank from chain c`,
      [nodeId, caller.organizationId, ownGrantSql(trx, 'c', caller)],
    );
    return Number(rows[0]?.rank ?? 0);
  }

  async list(nodeId: string): Promise<ShareRow[]> {
    return this.db<ShareRow>('knowledge_shares')
      .where({ node_id: nodeId })
      .orderBy([{ column: 'target_type' }, { column: 'target_id' }]);
  }

  /** Adds a share or changes its role; answers the row. */
  async put(row: Omit<ShareRow, 'created_at' | 'updated_at'>): Promise<ShareRow> {
    const [saved] = await this.db<ShareRow>('knowledge_shares')
      .insert(row)
      .onConflict(['node_id', 'target_type', 'target_id'])
      .merge({ role: row.role, updated_at: this.db.fn.now() as unknown as Date })
      .returning('*');
    return saved!;
  }

  /** Removes a share; whether there was one. Access follows at once (checked per request). */
  async remove(nodeId: string, targetType: TargetType, targetId: string): Promise<boolean> {
    const n = await this.db('knowledge_shares')
      .where({ node_id: nodeId, target_type: targetType, target_id: targetId })
      .delete();
    return n > 0;
  }
}
