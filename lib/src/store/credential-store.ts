import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { needsReseal, openSecret, sealSecret, type Keyring } from '../crypto/index.js';
import type { Logger } from '../logger.js';
import { MCP_CREDENTIAL_CHANGED_CHANNEL } from './migrations/0019-mcp-credential-notify.js';
import { NotificationFeed } from './notification-feed.js';
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
  version: number;
  refreshing_until: Date | null;
}

/** How often a renewal waiting for another replica's lease looks at the row again. */
const LEASE_POLL_MS = 100;

/** What `CredentialStore.renew` asks of its caller. */
export interface Renewal {
  /** Whether this value must be renewed now (false: it is answered as it is). May throw. */
  due(value: string, kind: CredentialKind): boolean;
  /**
   * The renewed value, or undefined to keep the current one. Runs with no database connection
   * held by the renewal (it may query the database itself).
   */
  next(value: string, kind: CredentialKind): Promise<string | undefined>;
  /** How long the claim on the row lasts: longer than `next` can take. */
  leaseMs: number;
  /** How long to wait for a renewal another replica is doing before `RenewalBusyError`. */
  waitMs: number;
}

/** Another replica held the renewal lease for longer than the caller would wait. */
export class RenewalBusyError extends Error {
  override readonly name = 'RenewalBusyError';
  constructor() {
    super('another replica is renewing this credential');
  }
}

/** How stale `last_used_at` may get: it is written at most this often. */
const LAST_USED_EVERY_MS = 60_000;

/**
 * How long a credential read is kept without asking the database while changes are heard
 * (every change evicts at once); it bounds the memory of credentials no longer used.
 */
export const CREDENTIAL_CACHE_TTL_MS = 30_000;
const CREDENTIAL_CACHE_MAX = 10_000;

/** A credential as read: still sealed (opened on each use), and when its use was last written. */
interface Cached {
  kind: CredentialKind;
  sealed: string;
  lastUsedAt: number;
  at: number;
}

const NOT_LINKED: CredentialLink = { linked: false, kind: null, lastUsedAt: null };

function cacheKey(serverId: string, userId: string): string {
  return `${serverId}\0${userId}`;
}

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
  /** Renewals running in this process, by (server, user): callers join the one running. */
  private readonly renewals = new Map<
    string,
    Promise<{ kind: CredentialKind; value: string } | undefined>
  >();
  /** Credentials read lately, by (server, user); trusted only while changes are heard. */
  private readonly cache = new Map<string, Cached>();
  /** Moves on every change heard and every loss of the feed: a read that started before one
   * may have seen a value that is gone now, so it is not kept. */
  private generation = 0;
  private changes: NotificationFeed | undefined;

  constructor(
    private readonly db: Knex,
    private readonly keyring: Keyring,
    private readonly now: () => number = Date.now,
  ) {
    this.oauthClients = new OAuthClientStore(db, keyring);
  }

  /**
   * Starts hearing every replica's credential changes (migration 0019's trigger announces
   * them as they commit), which lets `use` answer from memory; without it every `use` asks
   * the database.
   */
  async listen(databaseUrl: string, logger: Logger): Promise<void> {
    this.changes = new NotificationFeed({
      databaseUrl,
      logger,
      channel: MCP_CREDENTIAL_CHANGED_CHANNEL,
      what: 'MCP credentials',
      onNotice: (payload) => {
        this.generation += 1;
        const [serverId, userId] = payload.split(' ');
        this.cache.delete(cacheKey(serverId ?? '', userId ?? ''));
      },
      onLost: () => {
        this.generation += 1;
        this.cache.clear();
      },
    });
    await this.changes.start();
  }

  async close(): Promise<void> {
    await this.changes?.close();
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
        // A renewal of the previous value running now will not write over this one.
        version: this.db.raw('mcp_credentials.version + 1'),
        refreshing_until: null,
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
    const key = cacheKey(serverId, userId);
    const trusted = this.changes?.live === true;
    const hit = this.cache.get(key);
    if (hit && trusted && this.now() - hit.at < CREDENTIAL_CACHE_TTL_MS) {
      this.touch(serverId, userId, hit);
      return { kind: hit.kind, value: openSecret(this.keyring, hit.sealed, aad(serverId, userId)) };
    }
    if (hit) this.cache.delete(key);
    const generation = this.generation;
    const row = await this.db<Row>('mcp_credentials')
      .where({ server_id: serverId, user_id: userId })
      .first();
    if (!row) return undefined;
    const value = openSecret(this.keyring, row.sealed, aad(serverId, userId));
    // Every gateway request uses a credential: its last use is written at most once a minute
    // (as for API keys), not on each request.
    const update: Record<string, unknown> = {};
    const lastUsed = row.last_used_at?.getTime() ?? 0;
    if (this.now() - lastUsed >= LAST_USED_EVERY_MS) update.last_used_at = this.db.fn.now();
    const reseal = needsReseal(this.keyring, row.sealed);
    if (reseal) update.sealed = sealSecret(this.keyring, value, aad(serverId, userId));
    if (Object.keys(update).length > 0) {
      await this.db('mcp_credentials')
        .where({ server_id: serverId, user_id: userId, sealed: row.sealed })
        .update(update);
    }
    // A resealed row is announced (and read again next time); a change heard meanwhile may
    // have come after this read.
    if (!reseal && this.changes?.live === true && generation === this.generation) {
      const at = this.now();
      this.cache.set(key, {
        kind: row.kind,
        sealed: row.sealed,
        lastUsedAt: 'last_used_at' in update ? at : lastUsed,
        at,
      });
      if (this.cache.size > CREDENTIAL_CACHE_MAX) {
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) this.cache.delete(oldest);
      }
    }
    return { kind: row.kind, value };
  }

  /** Writes a cached credential's last use at most once a minute, without waiting for it. */
  private touch(serverId: string, userId: string, cached: Cached): void {
    const now = this.now();
    if (now - cached.lastUsedAt < LAST_USED_EVERY_MS) return;
    const previous = cached.lastUsedAt;
    cached.lastUsedAt = now;
    this.db('mcp_credentials')
      .where({ server_id: serverId, user_id: userId })
      .update({ last_used_at: this.db.fn.now() })
      .catch(() => {
        // Tried again on a later use.
        cached.lastUsedAt = previous;
      });
  }

  /**
   * Renews a credential's value without holding a database connection (or a row lock) while
   * `renewal.next` runs, which calls an authorization server that may be slow:
   *
   * 1. callers in this process for the same (server, user) share one renewal (one promise);
   * 2. the renewal reads the row; a value that is not `due` is answered as it is;
   * 3. it claims the row's lease (`refreshing_until`, one short statement, database clock) on
   *    the version it read; a lease another replica holds is waited for, polling, at most
   *    `waitMs` (then `RenewalBusyError`), and its result used when it is no longer due;
   * 4. `next` computes the new value with no connection held; it answers undefined to keep
   *    the current one; what it throws is rethrown after the lease is released;
   * 5. the new value is written only if the row is still the version that was read (a user
   *    who linked again meanwhile wins), which also ends the lease.
   *
   * Answers the credential in force afterwards, or undefined when none is linked.
   */
  async renew(
    serverId: string,
    userId: string,
    renewal: Renewal,
  ): Promise<{ kind: CredentialKind; value: string } | undefined> {
    const key = `${serverId}\u0000${userId}`;
    const running = this.renewals.get(key);
    if (running) return running;
    const flight = this.renewOnce(serverId, userId, renewal).finally(() => {
      this.renewals.delete(key);
    });
    this.renewals.set(key, flight);
    return flight;
  }

  private async renewOnce(
    serverId: string,
    userId: string,
    renewal: Renewal,
  ): Promise<{ kind: CredentialKind; value: string } | undefined> {
    const row = { server_id: serverId, user_id: userId };
    const deadline = Date.now() + renewal.waitMs;
    for (;;) {
      const found = (await this.db('mcp_credentials')
        .select('kind', 'sealed', 'version', this.db.raw('refreshing_until > now() as leased'))
        .where(row)
        .first()) as
        | { kind: CredentialKind; sealed: string; version: number; leased: boolean | null }
        | undefined;
      if (!found) return undefined;
      const value = openSecret(this.keyring, found.sealed, aad(serverId, userId));
      const current = { kind: found.kind, value };
      if (!renewal.due(value, found.kind)) return current;
      if (found.leased === true) {
        // Another replica is renewing it: its result will be there soon.
        if (Date.now() >= deadline) throw new RenewalBusyError();
        await sleep(LEASE_POLL_MS);
        continue;
      }
      const ofVersion = { ...row, version: found.version };
      const claimed = await this.db('mcp_credentials')
        .where(ofVersion)
        .andWhereRaw('(refreshing_until is null or refreshing_until <= now())')
        .update({
          refreshing_until: this.db.raw('now() + make_interval(secs => ?)', [
            renewal.leaseMs / 1000,
          ]),
        });
      // Someone else claimed it or wrote it meanwhile: look again.
      if (claimed === 0) continue;
      const release = () =>
        this.db('mcp_credentials').where(ofVersion).update({ refreshing_until: null });
      let next: string | undefined;
      try {
        next = await renewal.next(value, found.kind);
      } catch (error) {
        await release().catch(() => undefined);
        throw error;
      }
      if (next === undefined) {
        await release();
        return current;
      }
      const written = await this.db('mcp_credentials')
        .where(ofVersion)
        .update({
          sealed: sealSecret(this.keyring, next, aad(serverId, userId)),
          version: found.version + 1,
          refreshing_until: null,
          updated_at: this.db.fn.now(),
        });
      if (written === 1) return { kind: found.kind, value: next };
      // Linked again or removed while renewing: what is there now wins.
    }
  }
}
