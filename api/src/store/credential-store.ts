import type { Knex } from 'knex';
import { needsReseal, openSecret, sealSecret, type Keyring } from '../crypto/index.js';
import { OAuthClientStore } from './oauth-client-store.js';
import { notLive, type LiveScope } from './orphan-filter.js';

export type CredentialKind = 'static' | 'oauth';

/** What anyone may know about a credential: never its value. */
export interface CredentialLink {
  linked: boolean;
  kind: CredentialKind | null;
  lastUsedAt: Date | null;
}

interface Row {
  server_id: string;
  user_id: string;
  organization_id: string;
  kind: CredentialKind;
  sealed: string;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
}

/** How stale `last_used_at` may get: it is written at most this often. */
const LAST_USED_EVERY_MS = 60_000;

const NOT_LINKED: CredentialLink = { linked: false, kind: null, lastUsedAt: null };

/** The associated data binds an envelope to its row: copied to another row, it does not open. */
function aad(serverId: string, userId: string): string {
  return `mcp-credential:${serverId}:${userId}`;
}

/**
 * Per-user upstream credentials, one per (server, user), sealed with the keyring's active
 * key. Lookups are by (server, user) only: there is no way to read another user's value.
 */
export class CredentialStore {
  /** The OAuth clients that OAuth credentials name (`client_ref`); their secrets renew tokens. */
  readonly oauthClients: OAuthClientStore;

  constructor(
    private readonly db: Knex,
    private readonly keyring: Keyring,
  ) {
    this.oauthClients = new OAuthClientStore(db, keyring);
  }

  async put(input: {
    serverId: string;
    userId: string;
    organizationId: string;
    kind: CredentialKind;
    value: string;
  }): Promise<void> {
    const sealed = sealSecret(this.keyring, input.value, aad(input.serverId, input.userId));
    await this.db<Row>('mcp_credentials')
      .insert({
        server_id: input.serverId,
        user_id: input.userId,
        organization_id: input.organizationId,
        kind: input.kind,
        sealed,
      })
      .onConflict(['server_id', 'user_id'])
      .merge({
        organization_id: input.organizationId,
        kind: input.kind,
        sealed,
        updated_at: this.db.fn.now(),
        last_used_at: null,
      });
  }

  /** Removes the caller's credential; true when there was one. */
  async remove(serverId: string, userId: string): Promise<boolean> {
    const n = await this.db('mcp_credentials')
      .where({ server_id: serverId, user_id: userId })
      .delete();
    return n > 0;
  }

  /**
   * Removes every user's credential for an organization's server (it is being deleted), with
   * the server's OAuth client registrations and linking states.
   */
  async removeServer(serverId: string, organizationId: string): Promise<number> {
    const scope = { server_id: serverId, organization_id: organizationId };
    return this.db.transaction(async (trx): Promise<number> => {
      // Its linking states go with the OAuth client (ON DELETE CASCADE, migration 0004).
      await trx('mcp_oauth_clients').where(scope).delete();
      return trx('mcp_credentials').where(scope).delete();
    });
  }

  /**
   * Removes every credential whose server is not live, unchanged for the grace period (a
   * server created a moment ago may not be in the caller's list yet); answers how many.
   */
  async deleteForServersNotIn(scope: LiveScope): Promise<number> {
    return this.db('mcp_credentials')
      .where(notLive(this.db, { key: 'server_id', time: 'updated_at' }, scope))
      .delete();
  }

  async link(serverId: string, userId: string): Promise<CredentialLink> {
    const row = await this.db<Row>('mcp_credentials')
      .select('kind', 'last_used_at')
      .where({ server_id: serverId, user_id: userId })
      .first();
    return row ? { linked: true, kind: row.kind, lastUsedAt: row.last_used_at } : NOT_LINKED;
  }

  /** The caller's links for many servers at once (a listing), keyed by server id. */
  async links(serverIds: readonly string[], userId: string): Promise<Map<string, CredentialLink>> {
    const out = new Map<string, CredentialLink>();
    if (serverIds.length === 0) return out;
    const rows = await this.db<Row>('mcp_credentials')
      .select('server_id', 'kind', 'last_used_at')
      .where({ user_id: userId })
      .whereIn('server_id', [...serverIds]);
    for (const r of rows) {
      out.set(r.server_id, { linked: true, kind: r.kind, lastUsedAt: r.last_used_at });
    }
    return out;
  }

  /**
   * The plain credential for use against the upstream, or undefined when none is linked.
   * Marks it used, and reseals it under the active key when an older key sealed it.
   */
  async use(
    serverId: string,
    userId: string,
  ): Promise<{ kind: CredentialKind; value: string } | undefined> {
    const row = await this.db<Row>('mcp_credentials')
      .where({ server_id: serverId, user_id: userId })
      .first();
    if (!row) return undefined;
    const value = openSecret(this.keyring, row.sealed, aad(serverId, userId));
    // Every gateway request uses a credential: its last use is written at most once a minute
    // (as for API keys), not on each request.
    const update: Record<string, unknown> = {};
    const lastUsed = row.last_used_at?.getTime() ?? 0;
    if (Date.now() - lastUsed >= LAST_USED_EVERY_MS) update.last_used_at = this.db.fn.now();
    if (needsReseal(this.keyring, row.sealed)) {
      update.sealed = sealSecret(this.keyring, value, aad(serverId, userId));
    }
    if (Object.keys(update).length === 0) return { kind: row.kind, value };
    await this.db('mcp_credentials')
      .where({ server_id: serverId, user_id: userId, sealed: row.sealed })
      .update(update);
    return { kind: row.kind, value };
  }

  /**
   * Replaces a credential's value under a row lock, so concurrent renewals of one user's
   * credential (several replicas, several requests) happen one after the other: `next` sees
   * the current value (which another renewal may just have written) and answers the value to
   * store, or undefined to keep it. Answers the credential in force afterwards, or undefined
   * when none is linked. Whatever `next` throws rolls back and is rethrown. `next` runs while
   * the transaction holds a pool connection: it must not query the database itself.
   */
  async update(
    serverId: string,
    userId: string,
    next: (value: string, kind: CredentialKind) => Promise<string | undefined>,
  ): Promise<{ kind: CredentialKind; value: string } | undefined> {
    return this.db.transaction(async (trx) => {
      const row = await trx<Row>('mcp_credentials')
        .where({ server_id: serverId, user_id: userId })
        .forUpdate()
        .first();
      if (!row) return undefined;
      const value = openSecret(this.keyring, row.sealed, aad(serverId, userId));
      const replaced = await next(value, row.kind);
      if (replaced === undefined) return { kind: row.kind, value };
      await trx('mcp_credentials')
        .where({ server_id: serverId, user_id: userId })
        .update({
          sealed: sealSecret(this.keyring, replaced, aad(serverId, userId)),
          updated_at: trx.fn.now(),
        });
      return { kind: row.kind, value: replaced };
    });
  }
}
