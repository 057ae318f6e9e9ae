import type { Knex } from 'knex';

/**
 * Sharing's one vocabulary (docs/adr/0032 for files and folders, 0035 for agents): who a share
 * names, the role it gives, and the SQL that decides whether a share reaches a caller.
 */
export const ROLES = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof ROLES)[number];
export const TARGET_TYPES = ['user', 'group'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/** Viewer 1, editor 2, owner 3; 0 reads nothing. */
export const ROLE_RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };
export const roleOfRank = (rank: number): Role | undefined => ROLES[rank - 1];
/** A rank's name in a refusal's message ('none' for 0). */
export const roleName = (rank: number): string => roleOfRank(rank) ?? 'none';

/** Who asks: the user, the identity-provider groups they are in, the organization they act in. */
export interface Caller {
  organizationId: string;
  userId: string;
  groupIds: readonly string[];
}

/** A share table: the shares of one kind of thing, keyed by that thing's id column. */
export interface ShareTable {
  table: 'knowledge_shares' | 'agent_shares';
  key: 'node_id' | 'agent_id';
}
export const NODE_SHARES: ShareTable = { table: 'knowledge_shares', key: 'node_id' };
export const AGENT_SHARES: ShareTable = { table: 'agent_shares', key: 'agent_id' };

/** A share's role (the share aliased `s`) as a rank. */
export const RANK_SQL = `case s.role when 'owner' then 3 when 'editor' then 2 else 1 end`;
/** The shares aliased `s` that reach the caller (bindings: {@link reachBindings}). */
export const REACHES_SQL = `((s.target_type = 'user' and s.target_id = ?) or (s.target_type = 'group' and s.target_id = any(?::text[])))`;
export const reachBindings = (caller: Caller): [string, string[]] => [
  caller.userId,
  [...caller.groupIds],
];

/**
 * The SQL of a thing's own grant to the caller, for a row aliased `alias` whose owner is in
 * column `owner`: 3 when they own it, else their best share on it, else 0.
 */
export function ownGrantSql(
  db: Knex,
  shares: ShareTable,
  alias: string,
  owner: string,
  caller: Caller,
): Knex.Raw {
  return db.raw(
    `greatest(case when ??.?? = ? then 3 else 0 end,
       coalesce((select max(${RANK_SQL}) from ?? s
                  where s.?? = ??.id and ${REACHES_SQL}), 0))`,
    [alias, owner, caller.userId, shares.table, shares.key, alias, ...reachBindings(caller)],
  );
}
