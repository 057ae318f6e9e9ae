import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { OrganizationRows } from '@aiplane/api';
import { createDatabase } from '@aiplane/hack';
import { connect, migrate } from '@aiplane/lib/store';
import type { Knex } from 'knex';
import { environment } from './harness.js';

describe('organization rows: moving to a re-created organization’s id (real PostgreSQL)', function () {
  let db: Knex;
  const oldId = randomUUID();
  const newId = randomUUID();

  before(async function () {
    db = connect(await createDatabase(environment().info(), 'organization_rows', { fresh: true }));
    await migrate(db);
  });

  after(async function () {
    await db?.destroy();
  });

  it('moves every row, and keeps a setting saved under the new id over the old one of the same key', async function () {
    const t = (organization_id: string, key: string, value: string) => ({
      organization_id,
      language: 'de',
      namespace: 'common',
      key,
      value,
    });
    await db('translation_overrides').insert([
      t(oldId, 'save', 'old save'),
      t(oldId, 'cancel', 'old cancel'),
      t(newId, 'save', 'new save'),
    ]);
    await db('organization_config').insert([
      { organization_id: oldId, config: JSON.stringify({ retrieval_k: 5 }), version: 4 },
      { organization_id: newId, config: JSON.stringify({ retrieval_k: 9 }), version: 1 },
    ]);
    await db('branding_themes').insert({ organization_id: oldId, theme: '{"product_name":"x"}' });
    const logo = (organization_id: string, etag: string) => ({
      organization_id,
      content: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" id="${etag}"/>`),
      content_type: 'image/svg+xml',
      etag,
    });
    await db('branding_logos').insert([logo(oldId, '"old"'), logo(newId, '"new"')]);
    const [agent] = await db('agents')
      .insert({ organization_id: oldId, created_by: 'u', name: 'a' })
      .returning<{ id: string }[]>('id');
    await db('agent_shares').insert({
      agent_id: agent?.id,
      organization_id: oldId,
      target_type: 'user',
      target_id: 'v',
      role: 'viewer',
      created_by: 'u',
    });

    const rows = new OrganizationRows(db);
    // Moved: cancel, the theme, the agent and its share; the old save, config and logo gave way
    // to the new.
    assert.equal(await rows.move([oldId], newId), 4);
    assert.deepEqual(
      await db('translation_overrides')
        .where({ organization_id: newId })
        .orderBy('key')
        .select('key', 'value'),
      [
        { key: 'cancel', value: 'old cancel' },
        { key: 'save', value: 'new save' },
      ],
    );
    assert.deepEqual(
      await db('organization_config').where({ organization_id: newId }).select('config'),
      [{ config: { retrieval_k: 9 } }],
    );
    assert.equal((await db('branding_themes').where({ organization_id: newId })).length, 1);
    assert.deepEqual(await db('branding_logos').where({ organization_id: newId }).select('etag'), [
      { etag: '"new"' },
    ]);
    assert.equal((await db('agents').where({ organization_id: newId })).length, 1);
    assert.equal((await db('agent_shares').where({ organization_id: newId })).length, 1);
    for (const table of [
      'translation_overrides',
      'organization_config',
      'branding_themes',
      'branding_logos',
    ]) {
      assert.equal((await db(table).where({ organization_id: oldId })).length, 0, table);
    }
    assert.equal(await rows.move([oldId], newId), 0, 'a second move finds nothing');
  });
  it('moves and removes an organization’s catalogue entries and never touches platform-wide ones', async function () {
    const from = randomUUID();
    const to = randomUUID();
    const entry = (organization_id: string | null, name: string) => ({
      id: randomUUID(),
      organization_id,
      name,
      mode: 'chat',
      base_url: 'https://models.example.com/v1',
    });
    await db('model_catalogue').insert([
      entry(from, 'own'),
      entry(from, 'both'),
      entry(to, 'both'),
      entry(null, 'shared'),
    ]);
    const rows = new OrganizationRows(db);
    await rows.move([from], to);
    assert.deepEqual(
      (await db('model_catalogue').where({ organization_id: to }).orderBy('name')).map(
        (r: { name: string }) => r.name,
      ),
      ['both', 'own'],
    );
    await db('model_catalogue').update({ updated_at: db.raw("now() - interval '1 hour'") });
    await rows.removeSettingsNotIn({ live: [], graceSeconds: 60 });
    assert.deepEqual(
      (await db('model_catalogue').select('name', 'organization_id')).map(
        (r: { name: string; organization_id: string | null }) => [r.name, r.organization_id],
      ),
      [['shared', null]],
    );
  });
});
