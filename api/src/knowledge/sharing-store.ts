import type { Knex } from 'knex';
import {
  type Caller,
  NODE_SHARES,
  ownGrantSql,
  RANK_SQL,
  REACHES_SQL,
  reachBindings,
} from '../sharing/roles.js';

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
        [caller.organizationId, caller.userId, caller.organizationId, ...reachBindings(caller)],
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

/** A node's own grant to the caller (node aliased `alias`): owner, else its best share. */
export const nodeGrantSql = (db: Knex, alias: string, caller: Caller): Knex.Raw =>
  ownGrantSql(db, NODE_SHARES, alias, 'owner_id', caller);

/** The caller's role on one node, through the folders above it. */
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
      [nodeId, caller.organizationId, nodeGrantSql(trx, 'c', caller)],
    );
    return Number(rows[0]?.rank ?? 0);
  }
}
