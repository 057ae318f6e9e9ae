import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { parseKeyring } from '@aiplane/lib/crypto';
import { ModelCatalogue } from './model-catalogue.js';
import type { ModelCatalogueStore, ModelRow } from './model-catalogue-store.js';

describe('ModelCatalogue.backendFor: the inference path’s resolution, reused briefly', function () {
  const row: ModelRow = {
    id: '6f1c1f9e-1f4e-4c1a-9d57-3f0e8c1b2a11',
    organization_id: 'org-1',
    name: 'echo',
    mode: 'chat',
    backend_kind: 'openai',
    base_url: 'http://backend/v1',
    backend_model: null,
    api_key_sealed: null,
    context_window: null,
    tokenizer: 'echo/tokenizer.json',
    in_cluster: false,
    active: true,
    created_at: new Date(0),
    updated_at: new Date(0),
  };
  let reads: number;
  let now: number;
  let catalogue: ModelCatalogue;

  beforeEach(function () {
    reads = 0;
    now = 0;
    // The store's answers for one name: what the cache sits in front of.
    const store = {
      byName: () => {
        reads++;
        return Promise.resolve(row);
      },
      remove: () => Promise.resolve(true),
      get: () => Promise.resolve(row),
    } as unknown as ModelCatalogueStore;
    catalogue = new ModelCatalogue({
      store,
      keyring: parseKeyring(`k1:${randomBytes(32).toString('base64')}`),
      allowLoopback: false,
      backendCacheMs: 1000,
      now: () => now,
    });
  });

  it('reads the store once within backendCacheMs, and again after it', async function () {
    const first = await catalogue.backendFor('org-1', 'echo', 'chat');
    now = 999;
    assert.equal(await catalogue.backendFor('org-1', 'echo', 'chat'), first);
    assert.equal(reads, 1);
    assert.deepEqual(first?.tokenizer, { directory: 'org-1', path: 'echo/tokenizer.json' });
    await catalogue.backendFor('org-2', 'echo', 'chat'); // another organization: its own answer
    assert.equal(reads, 2);
    now = 1000;
    await catalogue.backendFor('org-1', 'echo', 'chat');
    assert.equal(reads, 3);
  });

  it('forgets what it resolved when an entry is written through it', async function () {
    await catalogue.backendFor('org-1', 'echo', 'chat');
    await catalogue.remove({ organizationId: 'org-1', platformAdmin: false }, row.id);
    await catalogue.backendFor('org-1', 'echo', 'chat');
    assert.equal(reads, 2);
  });
});
