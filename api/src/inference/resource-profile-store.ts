import type { Knex } from 'knex';
import type { ProfileDefinition } from './resource-profiles.js';

const TABLE = 'resource_profiles';

export interface StoredProfile {
  name: string;
  profile: ProfileDefinition;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['name', 'profile', 'enabled', 'created_at', 'updated_at'];

/** Resource profiles of each organization (PostgreSQL), keyed by (organization, name). */
export class ResourceProfileStore {
  constructor(private readonly db: Knex) {}

  async list(organizationId: string, enabled?: boolean): Promise<StoredProfile[]> {
    const q = this.db(TABLE).where({ organization_id: organizationId });
    if (enabled !== undefined) void q.andWhere({ enabled });
    return q.orderBy('name').select<StoredProfile[]>(COLUMNS);
  }

  async get(organizationId: string, name: string): Promise<StoredProfile | undefined> {
    return this.db(TABLE)
      .where({ organization_id: organizationId, name })
      .first<StoredProfile | undefined>(COLUMNS);
  }

  /** Inserts a new profile; undefined when the organization has one of that name. */
  async insert(
    organizationId: string,
    name: string,
    profile: ProfileDefinition,
    enabled: boolean,
  ): Promise<StoredProfile | undefined> {
    const [row] = await this.db(TABLE)
      .insert({ organization_id: organizationId, name, profile: JSON.stringify(profile), enabled })
      .onConflict(['organization_id', 'name'])
      .ignore()
      .returning<StoredProfile[]>(COLUMNS);
    return row;
  }

  /** Updates what is given; undefined when there is no such profile. */
  async update(
    organizationId: string,
    name: string,
    change: { profile?: ProfileDefinition; enabled?: boolean },
  ): Promise<StoredProfile | undefined> {
    const [row] = await this.db(TABLE)
      .where({ organization_id: organizationId, name })
      .update({
        ...(change.profile ? { profile: JSON.stringify(change.profile) } : {}),
        ...(change.enabled === undefined ? {} : { enabled: change.enabled }),
        updated_at: this.db.fn.now(),
      })
      .returning<StoredProfile[]>(COLUMNS);
    return row;
  }

  async remove(organizationId: string, name: string): Promise<boolean> {
    return (await this.db(TABLE).where({ organization_id: organizationId, name }).delete()) > 0;
  }
}
