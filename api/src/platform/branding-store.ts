import type { Knex } from 'knex';

const TABLE = 'branding_themes';

/** The saved branding theme of each organization (PostgreSQL), one row each. */
export class ThemeStore {
  constructor(private readonly db: Knex) {}

  async get<T>(organizationId: string): Promise<T | undefined> {
    const row = await this.db(TABLE)
      .where({ organization_id: organizationId })
      .first<{ theme: T } | undefined>('theme');
    return row?.theme;
  }

  async put(organizationId: string, theme: unknown): Promise<void> {
    await this.db(TABLE)
      .insert({ organization_id: organizationId, theme: JSON.stringify(theme) })
      .onConflict('organization_id')
      .merge({ theme: JSON.stringify(theme), updated_at: this.db.fn.now() });
  }

  async remove(organizationId: string): Promise<void> {
    await this.db(TABLE).where({ organization_id: organizationId }).delete();
  }
}
