import assert from 'node:assert/strict';
import pg from 'pg';
import { loadApiConfig, startApi } from '@aiplane/api';
import { loadGatewayConfig, startGateway } from '@aiplane/gateway';
import { apiEnv, createDatabase } from '@aiplane/hack';
import { keycloak, runLogger } from './api-helpers.js';
import { environment } from './harness.js';

/**
 * A fresh install starts every API and gateway replica at once, all on one empty database:
 * each migrates at start, so they must queue rather than fail on knex's migration lock.
 */
describe('API and gateway replicas starting together on an empty database', function () {
  it('all start, and every migration ran exactly once', async function () {
    this.timeout(120_000);
    keycloak();
    const info = environment().info();
    const databaseUrl = await createDatabase(info, 'replicas_start', { fresh: true });
    const env = {
      ...apiEnv(info, databaseUrl),
      AIPLANE_API_HOST: '127.0.0.1',
      AIPLANE_API_PORT: '0',
      AIPLANE_GATEWAY_PORT: '0',
      AIPLANE_GATEWAY_METRICS_PORT: '0',
    };
    const kc = environment().controlPlane.kubeConfig();
    const started = await Promise.allSettled([
      ...[1, 2, 3].map((i) => startApi(loadApiConfig(env), runLogger(`replica-api-${i}`), { kc })),
      ...[1, 2, 3].map((i) =>
        startGateway(loadGatewayConfig(env), runLogger(`replica-gateway-${i}`), { kc }),
      ),
    ]);
    try {
      const failed = started.filter((s) => s.status === 'rejected');
      assert.deepEqual(
        failed.map((f) => String(f.reason)),
        [],
        'every replica started',
      );
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string; n: string }>(
          'select name, count(*) as n from knex_migrations group by name order by name',
        );
        assert.ok(rows.length >= 4, JSON.stringify(rows));
        assert.ok(
          rows.every((r) => r.n === '1'),
          JSON.stringify(rows),
        );
      } finally {
        await client.end();
      }
    } finally {
      for (const s of started) if (s.status === 'fulfilled') await s.value.close();
    }
  });
});
