import type { Knex } from 'knex';
import type { Logger } from '../logger.js';
import { apiKeyMatches, hashApiKey } from './api-key-format.js';
import { NotificationFeed } from '../store/notification-feed.js';

/** The PostgreSQL channel a revocation is announced on; the payload is the key's id. */
export const API_KEY_REVOKED_CHANNEL = 'aiplane_api_key_revoked';

/** How long a verified key is trusted without asking the database (revocations evict at once). */
export const VERIFIED_TTL_MS = 30_000;
const VERIFIED_MAX = 10_000;

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

interface Row {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  hash: string;
  created_at: Date;
  last_used_at: Date | null;
}

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  prefix: r.prefix,
  hash: r.hash,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export class ApiKeyStore {
  /** Keys verified lately, by their hash; trusted only while revocations are heard. */
  private readonly verified = new Map<string, { record: ApiKeyRecord; at: number }>();
  /** Moves on every revocation heard and every loss of the feed: a lookup that started before
   * one may have read a key that is revoked now, so its answer is not kept. */
  private generation = 0;
  private revocations: NotificationFeed | undefined;

  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Starts hearing revocations (every replica's, as they commit), which lets `verify` answer
   * from memory; without it every `verify` asks the database.
   */
  async listen(databaseUrl: string, logger: Logger): Promise<void> {
    this.revocations = new NotificationFeed({
      databaseUrl,
      logger,
      channel: API_KEY_REVOKED_CHANNEL,
      what: 'verified API keys',
      onNotice: (id) => this.forget(id),
      onLost: () => {
        this.generation += 1;
        this.verified.clear();
      },
    });
    await this.revocations.start();
  }

  /** Whether revocations are heard now (verified keys are then answered from memory). */
  get hearsRevocations(): boolean {
    return this.revocations?.live === true;
  }

  async close(): Promise<void> {
    await this.revocations?.close();
  }

  /**
   * The live key `key` is (its listing prefix given), or undefined when it is unknown or
   * revoked. Hashes are compared in constant time.
   */
  async verify(key: string, prefix: string): Promise<ApiKeyRecord | undefined> {
    const hash = hashApiKey(key);
    const trusted = this.revocations?.live === true;
    const hit = this.verified.get(hash);
    if (hit && trusted && this.now() - hit.at < VERIFIED_TTL_MS) return hit.record;
    if (hit) this.verified.delete(hash);
    const generation = this.generation;
    const candidates = await this.findByPrefix(prefix);
    const record = candidates.find((c) => apiKeyMatches(key, c.hash));
    if (record && trusted && this.revocations?.live && generation === this.generation) {
      this.verified.set(hash, { record, at: this.now() });
      if (this.verified.size > VERIFIED_MAX) {
        const oldest = this.verified.keys().next().value;
        if (oldest !== undefined) this.verified.delete(oldest);
      }
    }
    return record;
  }

  /** Drops a revoked key from memory. */
  private forget(id: string): void {
    this.generation += 1;
    for (const [hash, v] of this.verified) if (v.record.id === id) this.verified.delete(hash);
  }

  async create(input: {
    userId: string;
    name: string;
    prefix: string;
    hash: string;
  }): Promise<ApiKeyRecord> {
    const [row] = await this.db<Row>('api_keys')
      .insert({ user_id: input.userId, name: input.name, prefix: input.prefix, hash: input.hash })
      .returning('*');
    return toRecord(row as Row);
  }

  /** Live (unrevoked) keys with this listing prefix. */
  private async findByPrefix(prefix: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db<Row>('api_keys').where({ prefix }).whereNull('revoked_at');
    return rows.map(toRecord);
  }

  async listForUser(userId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db<Row>('api_keys')
      .where({ user_id: userId })
      .whereNull('revoked_at')
      .orderBy('created_at', 'desc');
    return rows.map(toRecord);
  }

  /** Revokes one of the user's keys; false when the user has no live key with this id. */
  async revoke(userId: string, id: string): Promise<boolean> {
    // Announced in the same transaction: every replica hears it as it commits.
    const n = await this.db.transaction(async (trx) => {
      const changed = await trx('api_keys')
        .where({ id, user_id: userId })
        .whereNull('revoked_at')
        .update({ revoked_at: trx.fn.now() });
      if (changed > 0) await trx.raw('select pg_notify(?, ?)', [API_KEY_REVOKED_CHANNEL, id]);
      return changed;
    });
    this.forget(id);
    return n > 0;
  }

  /** Records use, at most once a minute per key, to keep the hot path free of writes. */
  async touch(id: string): Promise<void> {
    await this.db('api_keys')
      .where({ id })
      // Bracketed: `id = ? and (… or …)`, never `(id = ? and …) or …`.
      .andWhere((q) => {
        void q.whereNull('last_used_at').orWhereRaw("last_used_at < now() - interval '1 minute'");
      })
      .update({ last_used_at: this.db.fn.now() });
  }
}
