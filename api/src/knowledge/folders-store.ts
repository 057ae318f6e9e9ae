import type { Knex } from 'knex';
import { ApiError } from '@aiplane/lib/errors';
import type { NodeRow } from './files-store.js';

/** pg_advisory_xact_lock class of folder moves: one move at a time per organization. */
const MOVE_LOCK = 0x66_6f_6c_64; // "fold"

/** The insert or update broke the per-folder name rule: 409 naming the folder. */
function nameConflict(err: unknown, name: string): unknown {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23505' && e.constraint === 'knowledge_nodes_name') {
    return new ApiError(
      'file_name_conflict',
      `the destination folder already holds a file or folder named "${name}"`,
    );
  }
  return err;
}

export type NewNode = Pick<
  NodeRow,
  'id' | 'organization_id' | 'owner_id' | 'parent_id' | 'kind' | 'name'
> &
  Partial<Pick<NodeRow, 'blob_key' | 'media_type' | 'size_bytes' | 'sha256' | 'status'>>;

/** Writes of the tree: create, rename, move, delete; each in one transaction. */
export class FoldersStore {
  constructor(private readonly db: Knex) {}

  /** Inserts a node, and runs `also` in the same transaction (a file's processing job). */
  async insert(node: NewNode, also?: (trx: Knex.Transaction) => Promise<void>): Promise<NodeRow> {
    try {
      return await this.db.transaction(async (trx) => {
        const [row] = await trx<NodeRow>('knowledge_nodes').insert(node).returning('*');
        await also?.(trx);
        return row!;
      });
    } catch (err) {
      throw nameConflict(err, node.name);
    }
  }

  async rename(organizationId: string, id: string, name: string): Promise<NodeRow | undefined> {
    try {
      const [row] = await this.db<NodeRow>('knowledge_nodes')
        .where({ id, organization_id: organizationId })
        .update({ name, updated_at: this.db.fn.now() as unknown as Date })
        .returning('*');
      return row;
    } catch (err) {
      throw nameConflict(err, name);
    }
  }

  /**
   * Moves a node under `parentId` (null: its owner's root). A folder cannot go into itself or
   * a descendant (409 folder_move_cycle); moves of an organization are serialised, so two
   * crossing moves cannot make a cycle together.
   */
  async move(
    organizationId: string,
    id: string,
    parentId: string | null,
    /** The node's name, for the refusal's message. */
    name: string,
  ): Promise<NodeRow | undefined> {
    try {
      return await this.db.transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [MOVE_LOCK, organizationId]);
        if (parentId !== null) {
          const { rows } = await trx.raw<{ rows: unknown[] }>(
            `with recursive up(id, parent_id) as (
               select id, parent_id from knowledge_nodes where id = ?
               union all
               select p.id, p.parent_id from knowledge_nodes p join up on p.id = up.parent_id
             )
             select 1 from up where id = ?`,
            [parentId, id],
          );
          if (rows.length > 0) {
            throw new ApiError(
              'folder_move_cycle',
              'a folder cannot move into itself or into one of its descendants',
            );
          }
        }
        const [row] = await trx<NodeRow>('knowledge_nodes')
          .where({ id, organization_id: organizationId })
          .update({ parent_id: parentId, updated_at: trx.fn.now() as unknown as Date })
          .returning('*');
        return row;
      });
    } catch (err) {
      throw nameConflict(err, name);
    }
  }

  /**
   * Deletes a node and, for a folder, everything beneath it (with their shares and jobs);
   * answers the blob keys of the files that went, for the caller to remove after the commit.
   */
  async delete(organizationId: string, id: string): Promise<string[] | undefined> {
    return this.db.transaction(async (trx) => {
      const { rows } = await trx.raw<{ rows: { blob_key: string | null }[] }>(
        `with recursive down(id) as (
           select id from knowledge_nodes where id = ? and organization_id = ?
           union all
           select c.id from knowledge_nodes c join down d on c.parent_id = d.id
         )
         select n.blob_key from knowledge_nodes n join down d on d.id = n.id for update of n`,
        [id, organizationId],
      );
      if (rows.length === 0) return undefined;
      await trx('knowledge_nodes').where({ id, organization_id: organizationId }).delete();
      return rows.flatMap((r) => (r.blob_key === null ? [] : [r.blob_key]));
    });
  }
}
