import type { Knex } from 'knex';

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
  constructor(private readonly db: Knex) {}

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

  /** Live (unrevoked) keys with this listing prefix; the caller compares hashes in constant time. */
  async findByPrefix(prefix: string): Promise<ApiKeyRecord[]> {
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
    const n = await this.db('api_keys')
      .where({ id, user_id: userId })
      .whereNull('revoked_at')
      .update({ revoked_at: this.db.fn.now() });
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
