import type { Knex } from 'knex';

const TABLE = 'model_catalogue';

/** One row of the catalogue (docs/adr/0024); `api_key_sealed` never leaves the service. */
export interface ModelRow {
  id: string;
  organization_id: string | null;
  name: string;
  mode: string;
  backend_kind: string;
  base_url: string | null;
  backend_model: string | null;
  api_key_sealed: string | null;
  context_window: number | null;
  /** The model's tokenizer.json in the model store (docs/adr/0024); null: unknown. */
  tokenizer: string | null;
  in_cluster: boolean;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export type ModelRowChange = Partial<
  Omit<ModelRow, 'id' | 'organization_id' | 'name' | 'created_at' | 'updated_at'>
>;

/** The model catalogue (PostgreSQL): per organization, and platform-wide (organization null). */
export class ModelCatalogueStore {
  constructor(private readonly db: Knex) {}

  /** The organization's entries and the platform-wide ones, by name (the organization's first). */
  async visible(organizationId: string): Promise<ModelRow[]> {
    return this.db(TABLE)
      .where({ organization_id: organizationId })
      .orWhereNull('organization_id')
      .orderBy([{ column: 'name' }, { column: 'organization_id', order: 'asc', nulls: 'last' }])
      .select<ModelRow[]>('*');
  }

  /** An entry the organization may see (its own or a platform-wide one). */
  async get(organizationId: string, id: string): Promise<ModelRow | undefined> {
    return this.db(TABLE)
      .where({ id })
      .andWhere((q) => {
        void q.where({ organization_id: organizationId }).orWhereNull('organization_id');
      })
      .first<ModelRow | undefined>('*');
  }

  /**
   * The active entry of this name and mode for the organization: its own, else the
   * platform-wide one of that name.
   */
  async byName(organizationId: string, name: string, mode: string): Promise<ModelRow | undefined> {
    return this.db(TABLE)
      .where({ name, mode, active: true })
      .andWhere((q) => {
        void q.where({ organization_id: organizationId }).orWhereNull('organization_id');
      })
      .orderByRaw('organization_id is null')
      .first<ModelRow | undefined>('*');
  }

  /** Inserts an entry; undefined when its scope already has one of that name. */
  async insert(row: Omit<ModelRow, 'created_at' | 'updated_at'>): Promise<ModelRow | undefined> {
    try {
      const [created] = await this.db(TABLE).insert(row).returning<ModelRow[]>('*');
      return created;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return undefined; // unique_violation
      throw err;
    }
  }

  async update(id: string, change: ModelRowChange): Promise<ModelRow | undefined> {
    const [row] = await this.db(TABLE)
      .where({ id })
      .update({ ...change, updated_at: this.db.fn.now() })
      .returning<ModelRow[]>('*');
    return row;
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db(TABLE).where({ id }).delete()) > 0;
  }
}
