import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createDatabase, waitFor } from '@aiplane/hack';
import { createLogger } from '@aiplane/lib';
import { ApiKeyStore, generateApiKey } from '@aiplane/lib/auth';
import { connect, migrate } from '@aiplane/lib/store';
import { environment } from './harness.js';
import { rememberSecret } from './secrets.js';

/**
 * Verified API keys kept in memory (docs/adr/0024, latency): two stores on one database stand
 * for two replicas. A revocation made on one is heard by the other as it commits; while a
 * replica cannot hear revocations it asks the database every time.
 */
describe('API keys: verified keys in memory, revocations heard by every replica', function () {
  this.timeout(60_000);
  let db: Knex;
  let databaseUrl: string;
  let clock = Date.now();
  let a: ApiKeyStore;
  let b: ApiKeyStore;
  const logger = createLogger({ level: 'silent', name: 'api-key-revocations' });

  before(async function () {
    databaseUrl = await createDatabase(environment().info(), 'aiplane_api_key_revocations', {
      fresh: true,
    });
    db = connect(databaseUrl);
    await migrate(db);
    a = new ApiKeyStore(db, () => clock);
    b = new ApiKeyStore(db, () => clock);
    await a.listen(databaseUrl, logger);
    await b.listen(databaseUrl, logger);
  });

  after(async function () {
    await a?.close();
    await b?.close();
    await db?.destroy();
  });

  async function newKey(): Promise<{ key: string; prefix: string; id: string; userId: string }> {
    const k = generateApiKey();
    rememberSecret(k.key);
    const userId = randomUUID();
    const record = await a.create({ userId, name: 'k', prefix: k.prefix, hash: k.hash });
    return { key: k.key, prefix: k.prefix, id: record.id, userId };
  }

  /** Revokes behind the stores' backs: no announcement, as a hand-written SQL update would. */
  const revokeSilently = (id: string) =>
    db('api_keys').where({ id }).update({ revoked_at: db.fn.now() });

  it('answers a verified key from memory until its time is up (30 s)', async function () {
    const k = await newKey();
    assert.equal((await a.verify(k.key, k.prefix))?.id, k.id);
    await revokeSilently(k.id);
    // Not asked again: the database says revoked, memory still has it.
    assert.equal((await a.verify(k.key, k.prefix))?.id, k.id);
    clock += 30_001;
    assert.equal(await a.verify(k.key, k.prefix), undefined);
  });

  it('refuses a key at once on the replica that revoked it, and within moments on the other', async function () {
    const k = await newKey();
    assert.equal((await a.verify(k.key, k.prefix))?.id, k.id);
    assert.equal((await b.verify(k.key, k.prefix))?.id, k.id);
    assert.equal(await b.revoke(k.userId, k.id), true);
    assert.equal(await b.verify(k.key, k.prefix), undefined);
    await waitFor(
      'replica A to hear the revocation',
      async () => (await a.verify(k.key, k.prefix)) === undefined,
      { timeoutMs: 5_000, intervalMs: 20 },
    );
  });

  it('asks the database every time while it cannot hear revocations, and trusts memory again once it can', async function () {
    const k = await newKey();
    assert.equal((await a.verify(k.key, k.prefix))?.id, k.id);
    // Cut every listening connection: both replicas go deaf until they reconnect.
    await db.raw(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and query ilike 'LISTEN%' and pid <> pg_backend_pid()`,
    );
    // The replica learns its connection is gone (its error event; a silent loss, by keepalive).
    await waitFor('replica A to notice', () => Promise.resolve(!a.hearsRevocations), {
      timeoutMs: 5_000,
      intervalMs: 5,
    });
    await revokeSilently(k.id);
    assert.equal(await a.verify(k.key, k.prefix), undefined);
    // Reconnected (bounded poll): a fresh key is kept in memory again.
    const fresh = await newKey();
    await waitFor(
      'replica A to listen again',
      async () => {
        assert.equal((await a.verify(fresh.key, fresh.prefix))?.id, fresh.id);
        await revokeSilently(fresh.id);
        const kept = (await a.verify(fresh.key, fresh.prefix))?.id === fresh.id;
        if (!kept) {
          await db('api_keys').where({ id: fresh.id }).update({ revoked_at: null });
        }
        return kept;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
  });
});
