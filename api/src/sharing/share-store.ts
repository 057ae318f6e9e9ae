import type { Knex } from 'knex';
import type { Role, ShareTable, TargetType } from './roles.js';

/** One share as the share panel shows it. */
export interface Share {
  target_type: TargetType;
  target_id: string;
  role: Role;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

/** A share to write: who it names and the role it gives. */
export interface ShareTarget {
  target_type: TargetType;
  target_id: string;
  role: Role;
}

const COLUMNS = ['target_type', 'target_id', 'role', 'created_by', 'created_at', 'updated_at'];

/**
 * The shares of one kind of thing (files' nodes, agents) in its table: the share panel's reads
 * and writes. Who may see them is decided before (the caller's role on the thing).
 */
export class ShareStore {
  constructor(
    private readonly db: Knex,
    private readonly shares: ShareTable,
  ) {}

  async list(subjectId: string): Promise<Share[]> {
    return this.db<Share>(this.shares.table)
      .where(this.shares.key, subjectId)
      .orderBy([{ column: 'target_type' }, { column: 'target_id' }])
      .select(COLUMNS);
  }

  /** Adds a share or changes its role; answers the share. */
  async put(
    subjectId: string,
    organizationId: string,
    target: ShareTarget,
    createdBy: string,
  ): Promise<Share> {
    const [saved] = await this.db(this.shares.table)
      .insert({
        [this.shares.key]: subjectId,
        organization_id: organizationId,
        ...target,
        created_by: createdBy,
      })
      .onConflict([this.shares.key, 'target_type', 'target_id'])
      .merge({ role: target.role, updated_at: this.db.fn.now() })
      .returning<Share[]>(COLUMNS);
    return saved!;
  }

  /** Removes a share; whether there was one. Access follows at once (checked per request). */
  async remove(subjectId: string, targetType: TargetType, targetId: string): Promise<boolean> {
    const n = await this.db(this.shares.table)
      .where({ [this.shares.key]: subjectId, target_type: targetType, target_id: targetId })
      .delete();
    return n > 0;
  }
}
