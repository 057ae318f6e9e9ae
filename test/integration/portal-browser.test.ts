// The portal (portal/, served by the API under /portal/) in Debian's Chromium (playwright-core):
// a person signs in through Keycloak's real login page and uses the pages against the real API,
// operator, kube-apiserver, Keycloak and PostgreSQL. axe-core checks each page.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { repoRoot, type ManagedProcess } from '@aiplane/hack';
import { call, keycloak, startTestApi, type TestApi } from './api-helpers.js';
import { kcAdmin } from './keycloak-admin.js';
import { uniqueName } from './kube-helpers.js';
import { startOperatorProcess } from './operator-process.js';
import { rememberSecret } from './secrets.js';
import { awaitTenantGone } from './tenant-helpers.js';

const CHROMIUM = process.env.AIPLANE_CHROMIUM ?? '/usr/bin/chromium';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Adds (or removes) an origin to the portal client's web origins: the portal's token requests
 * are cross-origin fetches from the API's origin, here a port chosen for this run.
 */
async function portalOrigin(origin: string, present: boolean): Promise<void> {
  const [client] = (await (await kcAdmin('/clients?clientId=aiplane-portal')).json()) as {
    id: string;
    webOrigins: string[];
  }[];
  assert.ok(client, 'the portal client exists');
  const webOrigins = client.webOrigins.filter((o) => o !== origin);
  if (present) webOrigins.push(origin);
  const r = await kcAdmin(`/clients/${client.id}`, {
    method: 'PUT',
    body: { ...client, webOrigins },
  });
  assert.equal(r.status, 204, await r.text());
}

describe('the portal in a browser (Keycloak sign-in, real API and operator, Chromium)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let operator: ManagedProcess;
  let browser: Browser;
  let axeSource: string;
  /** What the pages reported: console errors (CSP violations among them) and failed requests. */
  const problems: string[] = [];
  /** Refusals a test provokes on purpose (`<status> <method> <path>`), each seen once. */
  const expected: string[] = [];
  const portal = (path = '') => `${api.url}/portal/${path}`;

  function watch(page: Page): void {
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) {
        problems.push(m.text());
      }
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('response', (r) => {
      const path = new URL(r.url()).pathname;
      // Without a logo the API answers 404 branding_logo_not_found: the portal shows the name.
      const refusal = `${r.status()} ${r.request().method()} ${path}`;
      const wanted = expected.indexOf(refusal);
      if (wanted >= 0) {
        expected.splice(wanted, 1);
        return;
      }
      if (r.status() >= 400 && path !== '/favicon.ico' && path !== '/v1/branding/logo') {
        problems.push(`${r.status()} ${r.url()}`);
      }
    });
    page.on('requestfailed', (r) => {
      // Navigating away cancels what the page was still loading.
      if (r.failure()?.errorText !== 'net::ERR_ABORTED') {
        problems.push(`${r.url()}: ${r.failure()?.errorText}`);
      }
    });
  }

  /** axe-core on the page as it is: no serious or critical violation. */
  async function assertAccessible(page: Page, what: string): Promise<void> {
    // Evaluated through the DevTools protocol: the page's CSP (no inline scripts) stays on.
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }
      ).axe;
      return (await axe.run()).violations;
    });
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      bad.map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      ),
      [],
      `${what}: accessibility violations`,
    );
  }

  /** Signs in through Keycloak's own login page, starting from the portal. */
  async function signIn(context: BrowserContext, user: 'admin' | 'member'): Promise<Page> {
    const page = await context.newPage();
    watch(page);
    await page.goto(portal());
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await assertAccessible(page, 'the sign-in page');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Keycloak's login form (another origin).
    await page.waitForURL((u) => u.href.startsWith(keycloak().issuer), { timeout: 30_000 });
    const login = keycloak().users[user];
    // With organizations enabled Keycloak asks for the username first, then the password.
    await page.locator('#username').fill(login.username);
    if (!(await page.locator('#password').isVisible())) await page.locator('#kc-login').click();
    await page.locator('#password').fill(login.password);
    await page.locator('#kc-login').click();
    await page
      .getByRole('heading', { name: 'Overview' })
      .waitFor({ timeout: 30_000 })
      .catch(async (err: unknown) => {
        const text = await page.locator('body').innerText();
        throw new Error(
          `${(err as Error).message}\npage ${page.url()}: ${text}\n${problems.join('\n')}`,
        );
      });
    assert.equal(new URL(page.url()).pathname, '/portal/', 'back from the callback');
    return page;
  }

  before(async function () {
    // The build the API serves, current (cached: nothing to do when the sources are unchanged).
    await promisify(execFile)(join(repoRoot, 'hack/lib/build-portal.sh'));
    axeSource = await readFile(AXE, 'utf8');
    operator = startOperatorProcess();
    api = await startTestApi('portal-browser', { AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true' });
    await portalOrigin(api.url, true);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  after(async function () {
    await browser?.close();
    if (api) await portalOrigin(api.url, false);
    await operator?.stop();
    await api?.close();
  });
  afterEach(function () {
    const seen = [...problems.splice(0), ...expected.splice(0).map((e) => `not seen: ${e}`)];
    if (this.currentTest?.state === 'passed')
      assert.deepEqual(seen, [], 'console errors or failed requests');
  });

  describe('as a platform admin', function () {
    let context: BrowserContext;
    let page: Page;
    before(async function () {
      context = await browser.newContext();
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
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

      const me = await call(`${api.url}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
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
      const after = await call(`${api.url}/v1/me`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      assert.equal(after.status, 401, 'a revoked key no longer works');
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
        await page.getByRole('link', { name: 'All tenants' }).first().click();
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
        await awaitTenantGone(api.url, new URL(tenantUrl).pathname.split('/').pop() ?? '');
        await page.getByText('This tenant does not exist (any more).').waitFor({ timeout: 30_000 });
      });
    });
  });

  describe('as a member', function () {
    it('hides the Administration workspace, answers "No access" at its address, and signs out', async function () {
      const context = await browser.newContext();
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
