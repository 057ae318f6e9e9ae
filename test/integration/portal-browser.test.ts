// The portal (portal/, served by the API under /portal/) in Debian's Chromium (playwright-core):
// a person signs in through Keycloak's real login page and uses the pages against the real API,
// operator, kube-apiserver, Keycloak and PostgreSQL. axe-core checks each page.
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { call } from './api-helpers.js';
import { uniqueName } from './kube-helpers.js';
import { usePortal } from './portal-harness.js';
import { rememberSecret } from './secrets.js';
import { awaitTenantGone } from './tenant-helpers.js';

describe('the portal in a browser (Keycloak sign-in, real API and operator, Chromium)', function () {
  this.timeout(120_000);
  const harness = usePortal('portal-browser');
  const { expected, assertAccessible, signIn, portal } = harness;

  describe('as a platform admin', function () {
    let context: BrowserContext;
    let page: Page;
    before(async function () {
      context = await harness.browser.newContext();
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: harness.api.url,
      });
      page = await signIn(context, 'admin');
    });
    after(async function () {
      await context?.close();
    });

    it('signs in through Keycloak’s login page and shows the caller from GET /v1/me, with both workspaces', async function () {
      await page.getByTestId('username').filter({ hasText: 'admin' }).waitFor();
      const workspaces = page.getByRole('navigation', { name: 'Workspace' });
      await workspaces.getByRole('link', { name: 'My workspace' }).waitFor();
      await workspaces.getByRole('link', { name: 'Administration' }).waitFor();
      await assertAccessible(page, 'the overview');
      await harness.screenshot(page, 'overview');
    });

    it('creates an API key whose secret is shown once with a copy button and works against the API, then revokes it', async function () {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'API keys' })
        .click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      await page.getByLabel('Name').fill('portal browser key');
      await page.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByTestId('new-api-key');
      const secret = (await shown.innerText()).trim();
      rememberSecret(secret);
      assert.match(secret, /^sk-svc-v1-/);
      await page.getByText('It is shown only once').waitFor();
      await page.getByRole('button', { name: 'Copy key' }).click();
      await page.getByText('Copied to the clipboard').waitFor();
      assert.equal(
        await page.evaluate(() =>
          (
            globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
          ).navigator.clipboard.readText(),
        ),
        secret,
      );
      await assertAccessible(page, 'the API keys page with a new key');

      const me = await call(`${harness.api.url}/v1/me`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      assert.equal(me.status, 200, me.text);
      assert.equal((me.json() as { authenticated_via: string }).authenticated_via, 'api_key');

      await page.getByRole('button', { name: 'I have stored the key' }).click();
      assert.equal(await shown.count(), 0, 'the secret is gone from the page');
      const row = page.getByRole('row').filter({ hasText: 'portal browser key' });
      await row.waitFor();
      assert.ok(!(await page.content()).includes(secret), 'the list never shows the secret');
      page.once('dialog', (d) => void d.accept());
      await row.getByRole('button', { name: 'Revoke portal browser key' }).click();
      await page.getByText('The key "portal browser key" was revoked.').waitFor();
      await row.waitFor({ state: 'detached' });
      const after = await call(`${harness.api.url}/v1/me`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      assert.equal(after.status, 401, 'a revoked key no longer works');
      await harness.screenshot(page, 'api-keys');
    });

    describe('a tenant provisioned from the portal', function () {
      const slug = uniqueName('portal').slice(0, 30);
      let tenantUrl: string;

      it('creates a tenant and watches its stages until it is Ready', async function () {
        await page
          .getByRole('navigation', { name: 'Workspace' })
          .getByRole('link', { name: 'Administration' })
          .click();
        await page.getByRole('heading', { name: 'Tenants', level: 1 }).waitFor();
        await assertAccessible(page, 'the tenant registry');
        // The API's own refusal, shown at the field.
        expected.push('422 POST /v1/admin/tenants');
        await page.getByLabel('Slug', { exact: true }).fill('Not A Slug');
        await page.getByRole('button', { name: 'Create' }).click();
        await page.locator('.field-error').first().waitFor();
        assert.equal(
          await page.getByLabel('Slug', { exact: true }).getAttribute('aria-invalid'),
          'true',
        );
        await page.getByLabel('Slug', { exact: true }).fill(slug);
        await page.getByLabel('Display name', { exact: true }).fill('Portal test tenant');
        await page.getByRole('button', { name: 'Create' }).click();
        await page.getByRole('heading', { name: `Tenant ${slug}` }).waitFor();
        tenantUrl = page.url();
        // The page refreshes by itself while the operator provisions.
        await page
          .getByTestId('tenant-phase')
          .filter({ hasText: 'Ready' })
          .waitFor({ timeout: 90_000 });
        for (const stage of [
          'Request accepted',
          'Tenant namespace',
          'Identity service',
          'Tenant ready',
        ]) {
          await page.locator('.stages li[data-state="done"]', { hasText: stage }).waitFor();
        }
        await page.locator('tr[data-condition="Ready"]', { hasText: 'True' }).waitFor();
        await assertAccessible(page, 'the tenant detail');
        await harness.screenshot(page, 'tenant-detail');
        await page.getByRole('link', { name: 'All tenants' }).first().click();
        await page.locator(`tr[data-slug="${slug}"]`, { hasText: 'Ready' }).waitFor();
        await harness.screenshot(page, 'tenants');
        await page.getByLabel('Search by name, slug or organization ID').fill(slug);
        await page.locator(`tr[data-slug="${slug}"]`, { hasText: 'Ready' }).waitFor();
      });

      it('lists the tenant’s MCP servers after choosing it in the tenant selector, with the spec’s status labels and field errors at the field', async function () {
        await page.getByLabel('Organization', { exact: true }).selectOption({ label: slug });
        await page.waitForLoadState('load');
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'MCP registry' })
          .click();
        await page.getByRole('heading', { name: 'MCP servers' }).waitFor();
        await page.getByText('No MCP servers match.').waitFor();
        await page.getByRole('link', { name: 'Add server' }).click();
        await page.getByRole('heading', { name: 'Add an MCP server' }).waitFor();
        await assertAccessible(page, 'the MCP server form');

        // 422: the API names the field; the form shows it there.
        expected.push('422 POST /v1/mcp/servers', '400 POST /v1/mcp/servers');
        await page.getByLabel('Name', { exact: true }).fill('Not Valid');
        await page.getByLabel('Display name', { exact: true }).fill('Docs');
        await page.getByLabel('Address (remote)').fill('http://127.0.0.1:9/mcp');
        await page.getByRole('button', { name: 'Add server' }).click();
        const nameField = page.locator('.field', { has: page.getByLabel('Name', { exact: true }) });
        await nameField.locator('.field-error').waitFor();
        // 400 mcp_server_address_invalid: shown at the address.
        await page.getByLabel('Name', { exact: true }).fill('docs');
        await page.getByLabel('Address (remote)').fill('http://user:secret@127.0.0.1:9/mcp');
        await page.getByRole('button', { name: 'Add server' }).click();
        const addressField = page.locator('.field', { has: page.getByLabel('Address (remote)') });
        await addressField.locator('.field-error').waitFor();
        assert.equal(
          await page.getByLabel('Address (remote)').getAttribute('aria-invalid'),
          'true',
        );
        await page.getByLabel('Address (remote)').fill('http://127.0.0.1:9/mcp');
        await page.getByRole('button', { name: 'Add server' }).click();
        await page.locator('tr[data-name="docs"]', { hasText: 'Not reported' }).waitFor();

        // A managed server with a write-only environment value.
        await page.getByRole('link', { name: 'Add server' }).click();
        await page.getByLabel('Managed').check();
        await page.getByLabel('Name', { exact: true }).fill('runner');
        await page.getByLabel('Display name', { exact: true }).fill('Runner');
        await page.getByLabel('Image (managed)').fill('ghcr.io/aiplane/test-mcp:1.0');
        await page.getByRole('button', { name: 'Add variable' }).click();
        await page.getByLabel('Variable name 1').fill('API_TOKEN');
        await page.getByLabel('Value 1').fill('write-only-value-123');
        await page.getByRole('button', { name: 'Add server' }).click();
        const runner = page.locator('tr[data-name="runner"]');
        await runner.waitFor();
        assert.match(
          await runner.locator('[data-status]').innerText(),
          /^(Status unknown|Not ready)$/,
        );
        assert.ok(
          !(await page.content()).includes('write-only-value-123'),
          'the value is never shown',
        );

        await page.getByLabel('Runtime').selectOption('remote');
        await page.locator('tr[data-name="runner"]').waitFor({ state: 'detached' });
        await page.getByLabel('Search by name or description').fill('doc');
        await page.locator('tr[data-name="docs"]').waitFor();
        await assertAccessible(page, 'the MCP registry');
      });

      it('deletes the tenant only once its slug is typed exactly', async function () {
        await page.goto(tenantUrl);
        const button = page.getByRole('button', { name: 'Delete tenant' });
        const confirm = page.getByLabel(`Type the slug "${slug}" to confirm`);
        assert.equal(await button.isDisabled(), true, 'disabled before anything is typed');
        await confirm.fill(slug.slice(0, -1));
        assert.equal(await button.isDisabled(), true, 'disabled for a prefix');
        await confirm.fill(`${slug.toUpperCase()}`);
        assert.equal(await button.isDisabled(), true, 'disabled for another case');
        await confirm.fill(slug);
        assert.equal(await button.isDisabled(), false, 'enabled once it matches');
        // Once the tenant is gone its page reads 404 and says so.
        expected.push(
          `404 GET ${new URL(tenantUrl).pathname.replace('/portal/admin', '/v1/admin')}`,
        );
        await button.click();
        await page.getByText('Deletion accepted').waitFor();
        await awaitTenantGone(harness.api.url, new URL(tenantUrl).pathname.split('/').pop() ?? '');
        await page.getByText('This tenant does not exist (any more).').waitFor({ timeout: 30_000 });
      });
    });
  });

  describe('as a member', function () {
    it('hides the Administration workspace, answers "No access" at its address, and signs out', async function () {
      const context = await harness.browser.newContext();
      try {
        const page = await signIn(context, 'member');
        assert.equal(await page.getByRole('navigation', { name: 'Workspace' }).count(), 0);
        assert.equal(await page.getByRole('link', { name: 'Tenants' }).count(), 0);
        await page.goto(portal('admin/tenants'));
        await page.getByRole('heading', { name: 'No access' }).waitFor();
        await assertAccessible(page, 'the no-access view');
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 30_000 });
      } finally {
        await context.close();
      }
    });
  });
});
