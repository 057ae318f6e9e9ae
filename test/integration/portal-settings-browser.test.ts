// The portal's MCP editing, credentials and settings pages in Debian's Chromium, against the
// real API, operator, Keycloak and PostgreSQL, with real MCP servers, the SDK's OAuth
// authorization server and a real file server for model downloads. axe-core checks each page;
// each main page is written to docs/screenshots/ (light and dark) for the README.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { LocalEmbedder, LocalReranker } from '@aiplane/api';
import {
  miniLmDir,
  startEmbeddingsTestBackend,
  startMcpTestServer,
  startOAuthTestAuthorizationServer,
  type McpTestServer,
  type OAuthTestAuthorizationServer,
} from '@aiplane/hack';
import {
  addMembers,
  caller,
  provisionTenant,
  removeMembers,
  type Call,
  type Tenant,
} from './fixtures/index.js';
import { acting, fileWithStatus, uploadText } from './files-helpers.js';
import { generatedFile, ModelFileServer } from './model-file-server.js';
import { backgroundOf, usePortal, VIEWPORT } from './portal-harness.js';
import { rememberSecret } from './secrets.js';

/** The portal page the upstream's authorization server returns the browser to. */
const RETURN_PATH = '/portal/mcp/oauth/return';

interface Server {
  id: string;
  linked: boolean;
  display_name: string;
  tool_allowlist: string[];
}

describe('the portal’s MCP editing, credentials and settings in a browser (real API, Keycloak, MCP servers, OAuth)', function () {
  this.timeout(120_000);
  let store = '';
  const harness = usePortal('portal-settings-browser', (origin) => ({
    // The model and file stores of this run (made as the API starts).
    AIPLANE_MODEL_STORE_DIR: (store = mkdtempSync(join(tmpdir(), 'portal-settings-'))),
    AIPLANE_FILES_DIR: join(store, 'files'),
    AIPLANE_MCP_OAUTH_REDIRECT_URL: `${origin}${RETURN_PATH}`,
    AIPLANE_MODEL_DOWNLOAD_ALLOW_LOOPBACK_SOURCES: 'true',
    AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS: 'true',
  }));
  const { expected, assertAccessible, signIn, portal, screenshot } = harness;
  let as: OAuthTestAuthorizationServer;
  let open: McpTestServer;
  let secured: McpTestServer;
  const files = new ModelFileServer();
  let tenant: Tenant;
  let admin: Call;
  const ids: Record<string, string> = {};
  let context: BrowserContext;
  let page: Page;

  const server = async (id: string): Promise<Server> => {
    const r = await admin('GET', `/v1/mcp/servers/${id}`);
    assert.equal(r.status, 200, r.text);
    return r.json() as Server;
  };
  const nav = async (name: string) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
  };

  before(async function () {
    this.timeout(240_000);
    as = await startOAuthTestAuthorizationServer();
    [open, secured] = await Promise.all([
      startMcpTestServer({ tools: [{ name: 'search', title: 'Search' }, { name: 'fetch' }] }),
      startMcpTestServer({
        oauth: { authorizationServer: as.issuer, verifier: as.verifier },
        tools: [{ name: 'tickets' }],
      }),
      files.start(),
    ]);
  });
  // The harness's API runs from here on (its before hook came first).
  before(async function () {
    this.timeout(240_000);
    tenant = await provisionTenant(harness.api.url, 'portal-settings');
    // Members before signing in: the token carries the organization.
    await addMembers(tenant.organizationId);
    admin = caller(harness.api.url, 'admin', tenant.organizationId);
    for (const [name, upstream] of [
      ['docs', open],
      ['secured', secured],
    ] as const) {
      const r = await admin('POST', '/v1/mcp/servers', {
        runtime: 'remote',
        name,
        display_name: name,
        address: upstream.url,
      });
      assert.equal(r.status, 200, r.text);
      ids[name] = (r.json() as Server).id;
    }
    context = await harness.browser.newContext({ viewport: VIEWPORT });
    page = await signIn(context, 'admin');
    await page
      .getByLabel('Organization', { exact: true })
      .selectOption({ value: tenant.organizationId });
    await page.waitForLoadState('load');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });
  after(async function () {
    await context?.close();
    if (tenant) await removeMembers(tenant.organizationId);
    await Promise.all([as?.close(), open?.close(), secured?.close(), files.close()]);
    if (store) await rm(store, { recursive: true, force: true });
  });

  it('links an OAuth credential through the return page, stores a static one, and says why a bad return fails', async function () {
    await page
      .getByRole('navigation', { name: 'Workspace' })
      .getByRole('link', { name: 'My workspace' })
      .click();
    await nav('MCP servers');
    await page.getByRole('link', { name: 'Credential secured' }).click();
    await page.getByRole('heading', { name: 'Your credential for secured' }).waitFor();
    await page.getByText('You have no credential for this server yet.').waitFor();
    await assertAccessible(page, 'the credential page');
    await screenshot(page, 'mcp-credential');

    await page.getByRole('button', { name: 'Connect' }).click();
    // The SDK's authorization server approves at once and sends the browser back.
    await page.waitForURL((u) => u.pathname === RETURN_PATH, { timeout: 30_000 });
    await page.getByText('Your account is connected: the credential is linked.').waitFor();
    assert.equal(new URL(page.url()).search, '', 'the code is off the address bar');
    await assertAccessible(page, 'the OAuth return page');
    assert.deepEqual(as.requests.registrations[0]?.redirect_uris, [
      `${harness.api.url}${RETURN_PATH}`,
    ]);
    assert.equal((await server(ids.secured ?? '')).linked, true);
    await page.getByRole('link', { name: 'Back to the server' }).click();
    await page.getByTestId('credential-state').filter({ hasText: 'is linked' }).waitFor();

    // A static credential for the other server: write-only.
    await page.goto(portal(`mcp/${ids.docs}/credential`));
    const secret = 'static-credential-4711';
    rememberSecret(secret);
    await page.getByLabel('Credential (token or key)').fill(secret);
    await page.getByRole('button', { name: 'Store credential' }).click();
    await page.getByText('Your credential was stored.').waitFor();
    assert.equal(await page.getByLabel('Credential (token or key)').inputValue(), '');
    assert.ok(!(await page.content()).includes(secret), 'never shown back');
    assert.equal((await server(ids.docs ?? '')).linked, true);

    // A state the API never issued: the refusal in words.
    expected.push('400 POST /v1/mcp/credential/oauth/callback');
    await page.goto(`${portal('mcp/oauth/return')}?code=made-up&state=not-issued`);
    await page.getByRole('alert').filter({ hasText: 'mcp_oauth_state_invalid' }).waitFor();
    // What the authorization server refused, in words too.
    await page.goto(`${portal('mcp/oauth/return')}?error=access_denied&error_description=No`);
    await page.getByText('did not grant access (access_denied)').waitFor();
  });

  it('edits a remote MCP server: the API’s errors at the field, the allowlist chosen from the tools the server lists', async function () {
    await page
      .getByRole('navigation', { name: 'Workspace' })
      .getByRole('link', { name: 'Administration' })
      .click();
    await nav('MCP registry');
    await page.locator('tr[data-name="docs"]').waitFor();
    await screenshot(page, 'mcp-registry');
    await page.getByRole('link', { name: 'Edit docs' }).click();
    await page.getByRole('heading', { name: 'Change the MCP server docs' }).waitFor();
    await assertAccessible(page, 'the MCP server edit form');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'docs');

    // 400 mcp_server_address_invalid: shown at the address, nothing changed.
    expected.push(`400 PUT /v1/mcp/servers/${ids.docs}`);
    const address = page.getByLabel('Address (remote)');
    await address.fill('http://user:secret@127.0.0.1:9/mcp');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.field', { has: address }).locator('.field-error').waitFor();
    assert.equal(await address.getAttribute('aria-invalid'), 'true');
    assert.equal((await server(ids.docs ?? '')).display_name, 'docs', 'nothing half-written');

    await address.fill(open.url);
    await page.getByLabel('Display name', { exact: true }).fill('Docs v2');
    await page.getByRole('button', { name: 'List the server’s tools' }).click();
    await page.getByRole('checkbox', { name: 'search (Search)' }).check();
    assert.equal(
      await page.getByLabel('Tool allowlist (one per line; empty allows every tool)').inputValue(),
      'search',
    );
    await screenshot(page, 'mcp-edit');
    // The screenshot reloaded the page: the choice again.
    await page.getByRole('button', { name: 'List the server’s tools' }).click();
    await page.getByRole('checkbox', { name: 'search (Search)' }).check();
    await page.getByLabel('Display name', { exact: true }).fill('Docs v2');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('tr[data-name="docs"]', { hasText: 'Docs v2' }).waitFor();
    const saved = await server(ids.docs ?? '');
    assert.deepEqual(saved.tool_allowlist, ['search']);
    assert.equal(saved.display_name, 'Docs v2');
  });

  it('edits a managed server’s write-only environment: names listed, values never; keep, replace, remove', async function () {
    const first = 'first-value-5150';
    const second = 'second-value-6160';
    rememberSecret(first);
    rememberSecret(second);
    const r = await admin('POST', '/v1/mcp/servers', {
      runtime: 'managed',
      name: 'runner',
      display_name: 'Runner',
      image: 'ghcr.io/aiplane/test-mcp:1.0',
      port: 8080,
      env: { API_TOKEN: first },
    });
    assert.equal(r.status, 200, r.text);
    const id = (r.json() as Server).id;
    const envOf = async () =>
      ((await admin('GET', `/v1/mcp/servers/${id}`)).json() as { env: { name: string }[] }).env
        .map((e) => e.name)
        .sort();

    await page.goto(portal(`admin/mcp/${id}/edit`));
    await page.getByText('Stored variables (values hidden): API_TOKEN').waitFor();
    // Keep (the default): a display name change leaves the environment alone.
    await page.getByLabel('Display name', { exact: true }).fill('Runner v2');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('tr[data-name="runner"]', { hasText: 'Runner v2' }).waitFor();
    assert.deepEqual(await envOf(), ['API_TOKEN']);

    // Replace: the stored name comes back without its value; a second variable is added.
    await page.goto(portal(`admin/mcp/${id}/edit`));
    await page.getByLabel('Set or replace variables').check();
    assert.equal(await page.getByLabel('Variable name 1').inputValue(), 'API_TOKEN');
    assert.equal(await page.getByLabel('Value 1').inputValue(), '', 'never shown back');
    await page.getByLabel('Value 1').fill(second);
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable name 2').fill('REGION');
    await page.getByLabel('Value 2').fill('eu');
    await assertAccessible(page, 'the managed server edit form');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('tr[data-name="runner"]').waitFor();
    assert.deepEqual(await envOf(), ['API_TOKEN', 'REGION']);
    assert.ok(!(await page.content()).includes(second), 'the value is never shown');

    // Remove every variable.
    await page.goto(portal(`admin/mcp/${id}/edit`));
    await page.getByText('Stored variables (values hidden): API_TOKEN, REGION').waitFor();
    await page.getByLabel('Remove every variable').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('tr[data-name="runner"]').waitFor();
    assert.deepEqual(await envOf(), []);
  });

  it('changes the theme colour: the preview at once, the whole portal once saved; uploads a logo', async function () {
    await page.goto(portal());
    await nav('Branding');
    await page.getByRole('heading', { name: 'Branding' }).waitFor();
    await assertAccessible(page, 'the branding editor');
    await screenshot(page, 'branding');
    const swatch = page.getByTestId('preview-light').locator('.preview-primary');
    const background = () => backgroundOf(swatch);
    assert.notEqual(await background(), 'rgb(170, 0, 0)');
    await page.getByLabel('Primary (Light)', { exact: true }).fill('#aa0000');
    assert.equal(await background(), 'rgb(170, 0, 0)', 'the live preview');
    const save = page.getByRole('button', { name: 'Save theme' });
    await save.click();
    await page.getByText('The theme was saved and applied.').waitFor();
    assert.equal(await backgroundOf(save), 'rgb(170, 0, 0)', 'the portal’s own primary colour');

    await page.getByLabel('Logo file').setInputFiles({
      name: 'logo.svg',
      mimeType: 'image/svg+xml',
      buffer: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" height="32" rx="8" fill="#2457d6"/><circle cx="16" cy="16" r="7" fill="#ffffff"/></svg>',
      ),
    });
    await page.getByRole('button', { name: 'Upload logo' }).click();
    await page.getByText('The logo was uploaded').waitFor();
    await page.locator('header .brand img').waitFor();
    // Back to the default theme (the later pages' screenshots show it).
    await page.getByRole('button', { name: 'Back to the default theme' }).click();
    await page.getByText('The default theme is back.').waitFor();
    assert.notEqual(await backgroundOf(save), 'rgb(170, 0, 0)');
  });

  it('adds a translation override and shows it on switching the language', async function () {
    await nav('Translations');
    await page.getByRole('heading', { name: 'Translations' }).waitFor();
    await page.getByLabel('Another language (BCP 47, e.g. de or pt-BR)').fill('de');
    await page.getByRole('button', { name: 'Edit this language' }).click();
    await page.getByLabel('Filter keys and texts').fill('nav.home');
    await page.getByLabel('Override of nav.home (de)').fill('Übersicht');
    await page.getByRole('button', { name: 'Save de overrides' }).click();
    await page.getByText('The de overrides were saved and applied.').waitFor();
    await assertAccessible(page, 'the translation editor');

    await page.getByLabel('Language', { exact: true }).selectOption('de');
    const main = page.getByRole('navigation', { name: 'Main' });
    await main.getByRole('link', { name: 'Übersicht' }).waitFor();
    await page.getByLabel('Language', { exact: true }).selectOption('en');
    await main.getByRole('link', { name: 'Overview' }).waitFor();
    await page.getByLabel('Filter keys and texts').fill('');
    await screenshot(page, 'translations');
  });

  it('adds, edits and removes a model catalogue entry with a write-only backend key', async function () {
    await nav('Model catalogue');
    await page.getByRole('heading', { name: 'Model catalogue' }).waitFor();
    await page.getByRole('button', { name: 'Add model' }).click();
    expected.push('422 POST /v1/models');
    await page.getByLabel('Model name').fill('not valid!');
    await page.getByLabel('Backend address').fill('http://127.0.0.1:9/v1');
    await page.getByRole('button', { name: 'Add model', exact: true }).last().click();
    await page
      .locator('.field', { has: page.getByLabel('Model name') })
      .locator('.field-error')
      .waitFor();
    const key = 'sk-backend-key-9876';
    rememberSecret(key);
    await page.getByLabel('Model name').fill('portal-chat');
    await page.getByLabel('New API key').fill(key);
    await page.getByRole('button', { name: 'Add model', exact: true }).last().click();
    await page.getByText('The model "portal-chat" was added.').waitFor();
    const row = page.locator('tr[data-model="portal-chat"]');
    await row.filter({ hasText: 'set' }).waitFor();
    assert.ok(!(await page.content()).includes(key), 'the key is never shown');
    await assertAccessible(page, 'the model catalogue');
    await screenshot(page, 'models');

    await row.getByRole('button', { name: 'Edit portal-chat' }).click();
    await page.getByLabel('Remove the key').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('The model "portal-chat" was saved.').waitFor();
    await row.filter({ hasText: 'none' }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Delete portal-chat' }).click();
    await page.getByText('The model "portal-chat" was removed.').waitFor();
    await row.waitFor({ state: 'detached' });
  });

  it('changes the configuration: a broken rule at its field, then a good change', async function () {
    await nav('Configuration');
    await page.getByRole('heading', { name: 'Configuration' }).waitFor();
    expected.push('422 PATCH /v1/config');
    const rerank = page.getByLabel('Rerank retrieved passages');
    await rerank.check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('.field', { has: rerank }).locator('.field-error').waitFor();
    assert.equal(await rerank.getAttribute('aria-invalid'), 'true');
    await rerank.uncheck();
    await page.getByLabel('Passages per question (retrieval_k)').fill('5');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('The configuration was saved.').waitFor();
    const r = await admin('GET', '/v1/config');
    assert.equal((r.json() as { retrieval_k: number }).retrieval_k, 5);
    await assertAccessible(page, 'the configuration');
    await screenshot(page, 'configuration');
  });

  it('downloads a model with its log followed live, and cancels one', async function () {
    const held = generatedFile(64 * 1024);
    const heldUrl = files.add('/held/weights.bin', {
      data: held.data,
      ranges: true,
      holdAt: 1024,
    });
    const small = generatedFile(4096);
    const smallUrl = files.add('/small/tokenizer.json', { data: small.data, ranges: true });
    await nav('Model downloads');
    await page.getByRole('heading', { name: 'Model downloads' }).waitFor();

    await page.getByLabel('Model directory').fill('held-model');
    await page.getByLabel('Address of file 1').fill(heldUrl);
    await page.getByLabel('Path of file 1').fill('weights.bin');
    await page.getByRole('button', { name: 'Start download' }).click();
    const card = page.locator('article[data-download="held-model"]');
    await card.getByText('Running').waitFor({ timeout: 30_000 });
    // A line of the log, followed as the worker writes it.
    await card.locator('.log').waitFor({ timeout: 30_000 });
    await assertAccessible(page, 'the downloads page');
    await card.getByRole('button', { name: 'Cancel download held-model' }).click();
    await card.getByText('Cancelled').waitFor({ timeout: 30_000 });

    await page.getByLabel('Model directory').fill('small-model');
    await page.getByLabel('Address of file 1').fill(smallUrl);
    await page.getByLabel('Path of file 1').fill('tokenizer.json');
    await page.getByLabel('SHA-256 of file 1 (optional)').fill(small.sha256);
    await page.getByRole('button', { name: 'Start download' }).click();
    await page
      .locator('article[data-download="small-model"]')
      .getByText('Completed')
      .waitFor({ timeout: 30_000 });
    await assertAccessible(page, 'the downloads page with finished downloads');
    await screenshot(page, 'downloads');
  });

  it('shows the reindex state in words, reindexes the organization’s documents, and cancels a running reindex', async function () {
    // Nothing indexed yet: the API's 404 reads as words.
    expected.push('404 GET /v1/collections/documents/reindex');
    await nav('Reindex');
    await page.getByRole('heading', { name: 'Reindex' }).waitFor();
    await page.getByText('The organization has no indexed documents yet').waitFor();
    await assertAccessible(page, 'the reindex page without documents');

    const owner = acting(harness.api.url, 'admin', tenant.organizationId);
    const file = await uploadText(owner, 'bees.txt', 'Bees make honey from the nectar of flowers.');
    await fileWithStatus(owner, file.id, 'RAG Available');
    expected.push('404 GET /v1/collections/documents/reindex');
    await page.reload();
    await page.getByText('No reindex has run in this organization.').waitFor();
    await page.getByRole('button', { name: 'Reindex now' }).click();
    // Followed through its event stream until it is done.
    await page
      .locator('[data-testid="reindex"][data-state="finished"]')
      .waitFor({ timeout: 60_000 });
    await page.getByText('1 written, 0 failed, 0 skipped of 1 files').waitFor();
    await assertAccessible(page, 'the reindex page');
    await screenshot(page, 'reindex');

    // Another embedding model whose backend holds the file's text: the reindex the
    // configuration starts stays running until the page cancels it.
    const embedder = await LocalEmbedder.start({ modelDir: miniLmDir(), batchSize: 8 });
    const backend = await startEmbeddingsTestBackend({
      embedder,
      reranker: new LocalReranker(embedder),
    });
    try {
      const r = await admin('POST', '/v1/models', {
        name: 'remote-minilm',
        mode: 'embedding',
        base_url: backend.baseUrl,
        backend_model: 'minilm',
      });
      assert.equal(r.status, 201, r.text);
      backend.hold((text) => text.includes('Bees'));
      await nav('Configuration');
      await page.getByLabel('Embedding model').fill('remote-minilm');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('The configuration was saved.').waitFor();
      await nav('Reindex');
      await page.locator('[data-testid="reindex"][data-state="running"]').waitFor();
      await page.getByText('a configuration change').waitFor();
      await assertAccessible(page, 'the reindex page while one runs');
      await page.getByRole('button', { name: 'Cancel reindex' }).click();
      await page.locator('[data-testid="reindex"][data-state="cancelled"]').waitFor();
      const config = (await admin('GET', '/v1/config')).json() as { embedding_model: string };
      assert.equal(config.embedding_model, null, 'the old model is named again');
    } finally {
      backend.release();
      await backend.close();
      await embedder.close();
    }
  });

  it('hides the settings from a member and answers "No access" at their addresses', async function () {
    const memberContext = await harness.browser.newContext();
    try {
      const member = await signIn(memberContext, 'member');
      await member
        .getByLabel('Organization', { exact: true })
        .selectOption({ value: tenant.organizationId });
      await member.waitForLoadState('load');
      await member.getByRole('heading', { name: 'Overview' }).waitFor();
      const main = member.getByRole('navigation', { name: 'Main' });
      await main.getByRole('link', { name: 'MCP servers' }).waitFor();
      for (const name of ['Configuration', 'Branding', 'Translations', 'Model catalogue']) {
        assert.equal(await main.getByRole('link', { name }).count(), 0, `${name} hidden`);
      }
      await member.goto(portal('settings/branding'));
      await member.getByRole('heading', { name: 'No access' }).waitFor();
    } finally {
      await memberContext.close();
    }
  });
});
