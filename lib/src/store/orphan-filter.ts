import type { Knex } from 'knex';

/** What a sweep of rows left behind by deleted MCP servers or tenants must keep. */
export interface LiveScope {
  /**
   * The keys still live: every McpServer's uid (as the apiserver writes them, lower-case UUIDs)
   * or every live TenantLifecycle's organization.
   */
  live: readonly string[];
  /** Rows whose time column is younger than this (by the database clock) are kept. */
  graceSeconds: number;
}

/**
 * The condition "this row's key column is none of `live`, and its time column is older than
 * `graceSeconds`" (the key compared as text, the form the apiserver's uids come in).
 *
 * The live ids travel as ONE bound parameter (a JSON array), not as `NOT IN (?, ?, …)`: that
 * form needs a parameter per id and PostgreSQL refuses more than 65 535 in a statement, and
 * `NOT IN` over a parameter list is checked row by row against the whole list (rows × ids).
 * `NOT EXISTS` over `jsonb_array_elements_text` is planned as a hash anti-join: the live set is
 * hashed once and each row is one probe, so a sweep costs rows + ids. Hundreds of thousands of
 * ids stay a few MB of parameter; far more than that would call for a temporary table.
 */
export function notLive(
  db: Knex,
  columns: { key: string; time: string },
  { live, graceSeconds }: LiveScope,
): Knex.Raw {
  return db.raw(
    `?? < now() - make_interval(secs => ?)
     and not exists (
       select 1 from jsonb_array_elements_text(?::jsonb) as live(id) where live.id = ??::text
     )`,
    [columns.time, graceSeconds, JSON.stringify(live), columns.key],
  );
}
