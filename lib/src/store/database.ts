import knexFactory, { type Knex } from 'knex';
import * as apiKeys from './migrations/0001-api-keys.js';
import * as mcpCredentials from './migrations/0002-mcp-credentials.js';
import * as agents from './migrations/0003-agents.js';
import * as mcpOAuth from './migrations/0004-mcp-oauth.js';
import * as mcpOAuthHardening from './migrations/0005-mcp-oauth-hardening.js';
import * as translations from './migrations/0006-translations.js';
import * as platformConfig from './migrations/0007-platform-config.js';
import * as branding from './migrations/0008-branding.js';
import * as brandingLogo from './migrations/0009-branding-logo.js';
import * as resourceProfiles from './migrations/0010-resource-profiles.js';
import * as modelCatalogue from './migrations/0011-model-catalogue.js';
import * as modelDownloads from './migrations/0012-model-downloads.js';
import * as modelTokenizer from './migrations/0013-model-tokenizer.js';
import * as knowledgeFiles from './migrations/0014-knowledge-files.js';
import * as knowledgeCollections from './migrations/0015-knowledge-collections.js';
import * as agentDocuments from './migrations/0016-agent-documents.js';
import * as agentShares from './migrations/0017-agent-shares.js';
import * as knowledgeReindex from './migrations/0018-knowledge-reindex.js';
import * as mcpCredentialNotify from './migrations/0019-mcp-credential-notify.js';

/** Migrations in order; listed here (not read from disk) so they work from source and from a build. */
const MIGRATIONS: { name: string; up(k: Knex): Promise<void>; down(k: Knex): Promise<void> }[] = [
  apiKeys,
  mcpCredentials,
  agents,
  mcpOAuth,
  mcpOAuthHardening,
  translations,
  platformConfig,
  branding,
  brandingLogo,
  resourceProfiles,
  modelCatalogue,
  modelDownloads,
  modelTokenizer,
  knowledgeFiles,
  knowledgeCollections,
  agentDocuments,
  agentShares,
  knowledgeReindex,
  mcpCredentialNotify,
];

const source: Knex.MigrationSource<(typeof MIGRATIONS)[number]> = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
  getMigrationName: (m) => m.name,
  getMigration: (m) => Promise.resolve(m),
};

export function connect(databaseUrl: string): Knex {
  return knexFactory({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: 0, max: 10 },
  });
}

/** pg_advisory_xact_lock key ("aipl" in ASCII), the same constant in every replica. */
const MIGRATION_LOCK = 0x61_69_70_6c;

/**
 * Applies pending migrations. Replicas of the API and the gateway start together on one
 * database, and knex's own lock table cannot serialise them (creating that table races, and a
 * held lock fails instead of waiting), so a transaction-scoped advisory lock queues them: the
 * first migrates, the others then find nothing pending.
 */
export async function migrate(db: Knex): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
    await db.migrate.latest({ migrationSource: source });
  });
}
