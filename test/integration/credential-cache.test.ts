import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createDatabase, waitFor } from '@aiplane/hack';
import { createLogger } from '@aiplane/lib';
import { parseKeyring } from '@aiplane/lib/crypto';
import { connect, CredentialStore, migrate } from '@aiplane/lib/store';
import { environment } from './harness.js';

/**
 * MCP credentials kept in memory on the gateway's warm path (docs/adr/0043): two stores on one
 * database stand for two replicas. Every change of a value, whichever statement makes it, is
 * announced by migration 0019's trigger as it commits and evicts it everywhere; a warm `use`
 * asks the database nothing.
 */
describe('MCP credentials: kept in memory, changes heard by every replica', function () {
  this.timeout(60_000);
  let db: Knex;
  let clock = Date.now();
  let a: CredentialStore;
  let b: CredentialStore;
  const logger = createLogger({ level: 'silent', name: 'credential-cache' });
  let queries = 0;
  const organizationId = randomUUID();

  before(async function () {
    const databaseUrl = await createDatabase(environment().info(), 'aiplane_credential_cache', {
      fresh: true,
    });
    const keyring = parseKeyring(environment().info().credentialKeys);
    db = connect(databaseUrl);
    await migrate(db);
    db.on('query', () => queries++);
    const replica = async () => {
      const store = new CredentialStore(db, keyring, () => clock);
      await store.listen(databaseUrl, logger);
      return store;
    };
    [a, b] = [await replica(), await replica()];
  });

  after(async function () {
    await Promise.all([a, b].map((replica) => replica?.close()));
    await db?.destroy();
  });

  /** Replica A's answer for a credential becomes `value` (undefined: gone) within moments. */
  const heard = (what: string, serverId: string, userId: string, value?: string) =>
    waitFor(
      `replica A to hear ${what}`,
      async () => (await a.use(serverId, userId))?.value === value,
      { timeoutMs: 5_000, intervalMs: 20 },
    );

  const link = async (value: string) => {
    const serverId = randomUUID();
    const userId = randomUUID();
    await b.put({ serverId, userId, organizationId, kind: 'static', value });
    return { serverId, userId };
  };

  it('answers a warm credential without a database round trip, and writes its use once a minute', async function () {
    const { serverId, userId } = await link('first');
    assert.equal((await a.use(serverId, userId))?.value, 'first');
    // The link's own announcement may reach A after that read and evict it once. Announcements
    // arrive in commit order: once A has heard a later change (a cached value replaced), the
    // link's is behind it, and what A caches now stays.
    const marker = await link('marker-1');
    assert.equal((await a.use(marker.serverId, marker.userId))?.value, 'marker-1');
    await b.put({ ...marker, organizationId, kind: 'static', value: 'marker-2' });
    await heard('a later change', marker.serverId, marker.userId, 'marker-2');
    assert.equal((await a.use(serverId, userId))?.value, 'first');
    const before = queries;
    for (let i = 0; i < 100; i++) assert.equal((await a.use(serverId, userId))?.value, 'first');
    assert.equal(queries - before, 0);
    clock += 60_001;
    await a.use(serverId, userId);
    await waitFor('the last use written', async () => {
      const row = (await db('mcp_credentials')
        .where({ server_id: serverId, user_id: userId })
        .first()) as { last_used_at: Date | null };
      return row.last_used_at !== null;
    });
  });

  it('evicts on every replica a credential linked again or removed on another', async function () {
    const { serverId, userId } = await link('old');
    assert.equal((await a.use(serverId, userId))?.value, 'old');
    await b.put({ serverId, userId, organizationId, kind: 'static', value: 'new' });
    await heard('the new value', serverId, userId, 'new');
    await b.remove(serverId, userId);
    await heard('the removal', serverId, userId);
  });

  it('hears a change no store method made (the trigger announces any statement)', async function () {
    const { serverId, userId } = await link('kept');
    assert.equal((await a.use(serverId, userId))?.value, 'kept');
    await db('mcp_credentials').where({ server_id: serverId, user_id: userId }).delete();
    await heard('the deletion', serverId, userId);
  });

  it('asks the database every time while it cannot hear changes', async function () {
    const { serverId, userId } = await link('deaf');
    assert.equal((await a.use(serverId, userId))?.value, 'deaf');
    await db.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and query ilike 'LISTEN%' and pid <> pg_backend_pid()`,
    );
    // A silent removal while deaf (no announcement heard): the next use asks the database.
    await waitFor(
      'replica A to go deaf',
      async () => {
        const before = queries;
        await a.use(serverId, userId);
        return queries > before;
      },
      { timeoutMs: 5_000, intervalMs: 5 },
    );
  });
});
