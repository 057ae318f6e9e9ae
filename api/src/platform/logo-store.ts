import type { Knex } from 'knex';

const TABLE = 'branding_logos';

export interface StoredLogo {
  content: Buffer;
  contentType: string;
  /** A strong entity tag, quoted: the SHA-256 of `content`. */
  etag: string;
  updatedAt: Date;
}

/** The branding logo of each organization (PostgreSQL, bytea), one row each. */
export class LogoStore {
  constructor(private readonly db: Knex) {}

  async get(organizationId: string): Promise<StoredLogo | undefined> {
    const row = await this.db(TABLE)
      .where({ organization_id: organizationId })
      .first<{ content: Buffer; content_type: string; etag: string; updated_at: Date } | undefined>(
        'content',
        'content_type',
        'etag',
        'updated_at',
      );
    return (
      row && {
        content: row.content,
        contentType: row.content_type,
        etag: row.etag,
        updatedAt: row.updated_at,
      }
    );
  }

  /** Saves the logo (replacing one); answers when it was saved. */
  async put(organizationId: string, logo: Omit<StoredLogo, 'updatedAt'>): Promise<Date> {
    const values = { content: logo.content, content_type: logo.contentType, etag: logo.etag };
    const [row] = await this.db(TABLE)
      .insert({ organization_id: organizationId, ...values })
      .onConflict('organization_id')
      .merge({ ...values, updated_at: this.db.fn.now() })
      .returning<{ updated_at: Date }[]>('updated_at');
    return row?.updated_at ?? new Date();
  }

  async remove(organizationId: string): Promise<void> {
    await this.db(TABLE).where({ organization_id: organizationId }).delete();
  }
}
