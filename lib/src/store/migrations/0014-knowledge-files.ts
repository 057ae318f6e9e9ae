import type { Knex } from 'knex';

export const name = '0014-knowledge-files';

/**
 * Files and folders with sharing (docs/adr/0032). One table holds both kinds, so that a name is
 * unique among everything in a folder; a node at the root (`parent_id` null) sits in its
 * owner's root. Shares give a user or an identity-provider group a role on a node and, for a
 * folder, on everything beneath it. Processing jobs wait in `knowledge_jobs`, a queue claimed
 * with `FOR UPDATE SKIP LOCKED` and held by a lease.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('knowledge_nodes', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 255).notNullable();
    t.string('owner_id', 255).notNullable();
    t.uuid('parent_id').references('knowledge_nodes.id').onDelete('CASCADE');
    t.string('kind', 8).notNullable();
    t.string('name', 255).notNullable();
    // Files only: the blob (fixed at upload), what was sent, and where processing stands.
    t.string('blob_key', 128);
    t.string('media_type', 255);
    t.bigInteger('size_bytes');
    t.string('sha256', 64);
    t.string('status', 16);
    t.text('status_reason');
    t.integer('chunk_count');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['parent_id']);
    t.index(['organization_id', 'owner_id']);
  });
  await knex.raw(
    `alter table knowledge_nodes add constraint knowledge_nodes_kind
       check (kind in ('folder', 'file')
         and (kind = 'folder') = (blob_key is null)
         and (kind = 'folder') = (status is null))`,
  );
  await knex.raw(
    `alter table knowledge_nodes add constraint knowledge_nodes_status
       check (status in ('uploaded', 'processing', 'RAG Available', 'failed'))`,
  );
  // Names are unique per folder, whatever their case; the root is each owner's own.
  await knex.raw(
    `create unique index knowledge_nodes_name on knowledge_nodes
       (organization_id, coalesce(parent_id::text, 'root:' || owner_id), lower(name))`,
  );
  await knex.raw(
    `create index knowledge_nodes_rag on knowledge_nodes (organization_id) where status = 'RAG Available'`,
  );

  await knex.schema.createTable('knowledge_shares', (t) => {
    t.uuid('node_id').notNullable().references('knowledge_nodes.id').onDelete('CASCADE');
    t.string('organization_id', 255).notNullable();
    t.string('target_type', 8).notNullable();
    t.string('target_id', 255).notNullable();
    t.string('role', 8).notNullable();
    t.string('created_by', 255).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['node_id', 'target_type', 'target_id']);
    t.index(['organization_id', 'target_type', 'target_id']);
  });
  await knex.raw(
    `alter table knowledge_shares add constraint knowledge_shares_values
       check (target_type in ('user', 'group') and role in ('viewer', 'editor', 'owner'))`,
  );

  await knex.schema.createTable('knowledge_jobs', (t) => {
    t.uuid('id').primary();
    t.string('queue', 64).notNullable();
    t.string('organization_id', 255).notNullable();
    t.uuid('node_id').notNullable().references('knowledge_nodes.id').onDelete('CASCADE');
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable();
    t.timestamp('run_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('lease_owner', 64);
    t.timestamp('lease_expires_at', { useTz: true });
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['queue', 'status', 'run_at']);
  });
  await knex.raw(
    `alter table knowledge_jobs add constraint knowledge_jobs_status
       check (status in ('queued', 'running', 'done', 'failed'))`,
  );
  // One pending or running job per node and queue.
  await knex.raw(
    `create unique index knowledge_jobs_active on knowledge_jobs (queue, node_id)
       where status in ('queued', 'running')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('knowledge_jobs');
  await knex.schema.dropTable('knowledge_shares');
  await knex.schema.dropTable('knowledge_nodes');
}
