// The portal's files, share panel, RAG picker and Custom GPTs (docs/adr/0039) in Debian's
// Chromium against the real API, operator, Keycloak, PostgreSQL and the real processing engines
// (extraction, chunking, all-MiniLM-L6-v2): two people sign in through Keycloak's login page.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { waitFor } from '@aiplane/hack';
import { keycloak } from './api-helpers.js';
import {
  addMembers,
  caller,
  provisionTenant,
  removeMembers,
  type Call,
  type Tenant,
} from './fixtures/index.js';
import { registerRemote } from './mcp-helpers.js';
import { usePortal } from './portal-harness.js';
import { adminCall, awaitTenantGone } from './tenant-helpers.js';

const DOCUMENT = 'lighthouse-notes.md';
const DOCUMENT_TEXT = `# Gannet Rock lighthouse

Marta Quill kept the lighthouse on Gannet Rock for forty-one years. Every evening at dusk she
wound the clockwork that turns the lens, and she logged each passing ship in a green ledger.
`;
const NOISE = 'noise.bin';
const AGENT = 'Lighthouse guide';

interface AgentRecord {
  id: string;
  name: string;
  description: string | null;
  mcp_server_ids: string[];
  document_ids: string[];
}

describe('the portal’s files, share panel, RAG picker and Custom GPTs in a browser', function () {
  this.timeout(300_000);
  const filesDir = mkdtempSync(join(tmpdir(), 'aiplane-portal-knowledge-'));
  const harness = usePortal('portal-knowledge', () => ({
    // Sharing is read at once (no cache of a caller's groups and access).
    AIPLANE_IDP_ACCESS_CACHE_SECONDS: '0',
    AIPLANE_FILES_DIR: filesDir,
  }));
  const { expected, assertAccessible, signIn } = harness;
  // After the harness's own hooks: the API is closed then.
  after(function () {
    rmSync(filesDir, { recursive: true, force: true });
  });
  const memberId = () => keycloak().users.member.id;

  describe('an admin and a member of a tenant', function () {
    let tenant: Tenant;
    let admin: Call;
    let serverId: string;
    let fileId: string;
    let agentId: string;

    before(async function () {
      tenant = await provisionTenant(harness.api.url, 'portal-kn');
      await addMembers(tenant.organizationId);
      admin = caller(harness.api.url, 'admin', tenant.organizationId);
      serverId = await registerRemote(admin, {
        name: 'harbour-docs',
        display_name: 'Harbour docs',
        address: 'http://127.0.0.1:9/mcp',
      });
    });
    after(async function () {
      if (!tenant) return;
      await removeMembers(tenant.organizationId);
      const r = await adminCall(`${harness.api.url}/v1/admin/tenants/${tenant.id}`, {
        method: 'DELETE',
      });
      assert.equal(r.status, 202, r.text);
      await awaitTenantGone(harness.api.url, tenant.id);
    });

    /** Signs in and acts in the tenant's organization (the selector reloads the page). */
    async function signInToTenant(context: BrowserContext, user: 'admin' | 'member') {
      const page = await signIn(context, user);
      await page.getByLabel('Organization', { exact: true }).selectOption({ label: tenant.slug });
      await page.waitForLoadState('load');
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      return page;
    }
    const nav = (page: Page, name: string) =>
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();

    /** `user` signed in and acting in the tenant, in a browser context of the enclosing describe. */
    function signedIn(user: 'admin' | 'member'): { context: BrowserContext; page: Page } {
      const session = {} as { context: BrowserContext; page: Page };
      before(async function () {
        session.context = await harness.browser.newContext();
        session.page = await signInToTenant(session.context, user);
      });
      after(async function () {
        await session.context?.close();
      });
      return session;
    }

    describe('as the admin', function () {
      const session = signedIn('admin');

      it('uploads through the Files page with a progress bar of the bytes sent; an unsupported file ends `failed` with its reason', async function () {
        const { page, context } = session;
        await nav(page, 'Files');
        await page.getByRole('heading', { name: 'Files', level: 1 }).waitFor();
        await page.getByText('Nothing here yet.').waitFor();
        await assertAccessible(page, 'the files page');
        // Slow the upload down (DevTools network emulation) so the bar is seen on its way.
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: 0,
          downloadThroughput: -1,
          uploadThroughput: 48 * 1024,
        });
        await page.getByLabel('Files to upload').setInputFiles({
          name: NOISE,
          mimeType: 'application/octet-stream',
          buffer: randomBytes(160 * 1024),
        });
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        const bar = page.getByRole('progressbar', { name: `Upload progress of ${NOISE}` });
        await bar.waitFor();
        // A value strictly between 0 and 100 while the bytes are on their way.
        const seen: number[] = [];
        await waitFor(
          'the progress bar between 0 and 100',
          async () => {
            const value = Number(await bar.getAttribute('value'));
            seen.push(value);
            return value > 0 && value < 100;
          },
          { timeoutMs: 30_000, intervalMs: 50 },
        ).catch((err: unknown) => {
          throw new Error(`${(err as Error).message}: seen ${seen.join(', ')}`);
        });
        await page.locator(`li[data-upload="${NOISE}"][data-state="done"]`).waitFor();
        assert.equal(await bar.getAttribute('value'), '100');
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: 0,
          downloadThroughput: -1,
          uploadThroughput: -1,
        });
        await cdp.detach();
        // The folder refreshes by itself while the file is processed.
        const row = page.locator(`tr[data-name="${NOISE}"]`);
        await row.locator('[data-status="failed"]').waitFor({ timeout: 60_000 });
        await row.getByText('not a supported document format').waitFor();
      });

      it('watches an uploaded document become `RAG Available` and finds it by searching in documents', async function () {
        const { page } = session;
        await page.getByLabel('Files to upload').setInputFiles({
          name: DOCUMENT,
          mimeType: 'text/markdown',
          buffer: Buffer.from(DOCUMENT_TEXT),
        });
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        const row = page.locator(`tr[data-name="${DOCUMENT}"]`);
        await row.waitFor();
        const first = await row.locator('[data-status]').getAttribute('data-status');
        assert.ok(
          ['uploaded', 'processing', 'RAG Available'].includes(first ?? ''),
          `first status ${first}`,
        );
        await row.locator('[data-status="RAG Available"]').waitFor({ timeout: 120_000 });
        assert.equal(await row.locator('.badge').innerText(), 'RAG Available');
        await assertAccessible(page, 'the files page with a failed and a RAG Available file');
        await harness.screenshot(page, 'files');

        await page.getByRole('link', { name: 'Search in documents' }).click();
        await page.getByRole('heading', { name: 'Search in documents' }).waitFor();
        await page
          .getByLabel('Question or keywords')
          .fill('Who kept the lighthouse on Gannet Rock?');
        await page.getByRole('button', { name: 'Search' }).click();
        const hit = page.locator(`li.hit[data-file="${DOCUMENT}"]`).first();
        await hit.waitFor();
        assert.match(await hit.innerText(), /Marta Quill/);
        await assertAccessible(page, 'the document search');
        await harness.screenshot(page, 'files-search');
        await page.getByRole('link', { name: 'Back to the files' }).click();
      });

      it('creates a folder (the API’s refusal at the field), moves the document into it, renames and deletes a file', async function () {
        const { page } = session;
        const folderName = page.getByLabel('New folder name');
        expected.push('422 POST /v1/folders');
        await folderName.fill('a/b');
        await page.getByRole('button', { name: 'Create folder' }).click();
        await page
          .locator('.field', { has: folderName })
          .locator('.field-error', { hasText: 'slash' })
          .waitFor();
        assert.equal(await folderName.getAttribute('aria-invalid'), 'true');
        await folderName.fill('Reports');
        await page.getByRole('button', { name: 'Create folder' }).click();
        await page.locator('tr[data-name="Reports"][data-kind="folder"]').waitFor();

        await page.getByRole('button', { name: `Move ${DOCUMENT}` }).click();
        await page.getByRole('heading', { name: `Move "${DOCUMENT}"` }).waitFor();
        await assertAccessible(page, 'the move panel');
        await page.getByRole('button', { name: 'Open Reports' }).click();
        await page.getByRole('button', { name: 'Move into Reports' }).click();
        await page.getByText(`"${DOCUMENT}" was moved.`).waitFor();
        await page.locator(`tr[data-name="${DOCUMENT}"]`).waitFor({ state: 'detached' });

        await page.getByRole('button', { name: `Rename ${NOISE}` }).click();
        await page.getByLabel('New name').fill('noise-renamed.bin');
        await page.getByRole('button', { name: 'Rename', exact: true }).click();
        await page.getByText('Renamed to "noise-renamed.bin".').waitFor();
        page.once('dialog', (d) => void d.accept());
        await page.getByRole('button', { name: 'Delete noise-renamed.bin' }).click();
        await page.getByText('"noise-renamed.bin" was deleted.').waitFor();
        await page.locator('tr[data-name="noise-renamed.bin"]').waitFor({ state: 'detached' });

        await page.getByRole('link', { name: 'Reports (folder)' }).click();
        const crumbs = page.getByRole('navigation', { name: 'Folder path' });
        await crumbs
          .getByRole('link', { name: 'Reports' })
          .and(page.locator('[aria-current="page"]'))
          .waitFor();
        await page.locator(`tr[data-name="${DOCUMENT}"] [data-status="RAG Available"]`).waitFor();
        await assertAccessible(page, 'a folder');
      });

      it('shares the document with the member in the share panel (a bad ID refused at the field)', async function () {
        const { page } = session;
        const found = await admin('GET', `/v1/files/search?q=${DOCUMENT}`);
        assert.equal(found.status, 200, found.text);
        fileId = (found.json() as { items: { id: string }[] }).items[0]?.id ?? '';
        await page.getByRole('button', { name: `Share ${DOCUMENT}` }).click();
        await page.getByRole('heading', { name: `Share "${DOCUMENT}"` }).waitFor();
        await page.getByText('Not shared with anyone.').waitFor();
        expected.push(`422 POST /v1/files/${fileId}/shares`);
        const userId = page.getByLabel('User ID');
        await userId.fill('not-a-user-id');
        await page.getByRole('button', { name: 'Share', exact: true }).click();
        await page.locator('.field', { has: userId }).locator('.field-error').waitFor();
        assert.equal(await userId.getAttribute('aria-invalid'), 'true');
        await userId.fill(memberId());
        await page.getByRole('button', { name: 'Share', exact: true }).click();
        await page.getByText(`Shared with ${memberId()} as Viewer.`).waitFor();
        await page.locator(`tr[data-target="${memberId()}"]`).waitFor();
        await assertAccessible(page, 'the share panel');
      });

      it('creates a Custom GPT with an MCP server and the document from the RAG picker, edits it and shares it', async function () {
        const { page } = session;
        await nav(page, 'Custom GPTs');
        await page.getByRole('heading', { name: 'Custom GPTs' }).waitFor();
        await page.getByText('No Custom GPTs yet.').waitFor();
        await assertAccessible(page, 'the Custom GPTs page');
        await page.getByRole('link', { name: 'New Custom GPT' }).click();
        await page.getByRole('heading', { name: 'New Custom GPT' }).waitFor();
        await page.getByLabel('Name', { exact: true }).fill(AGENT);
        await page.getByLabel('Instructions').fill('Answer questions about the lighthouse.');
        await page.getByRole('checkbox', { name: 'Harbour docs harbour-docs' }).check();
        await page.getByTestId('rag-picker').getByRole('checkbox', { name: DOCUMENT }).check();
        await assertAccessible(page, 'the Custom GPT form');
        await page.getByRole('button', { name: 'Create Custom GPT' }).click();
        const row = page.locator(`tr[data-agent="${AGENT}"]`);
        await row.waitFor();
        const listed = await admin('GET', '/v1/agents');
        const agent = (listed.json() as { agents: AgentRecord[] }).agents.find(
          (a) => a.name === AGENT,
        );
        assert.ok(agent, listed.text);
        agentId = agent.id;
        assert.deepEqual(agent.mcp_server_ids, [serverId]);
        assert.deepEqual(agent.document_ids, [fileId]);

        await row.getByRole('link', { name: `Edit ${AGENT}` }).click();
        await page.getByRole('heading', { name: 'Edit Custom GPT' }).waitFor();
        await page
          .getByTestId('rag-picker')
          .getByRole('checkbox', { name: DOCUMENT, checked: true })
          .waitFor();
        await page.getByLabel('Description').fill('Knows Gannet Rock');
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.getByText(`Saved "${AGENT}".`).waitFor();
        const saved = await admin('GET', `/v1/agents/${agentId}`);
        assert.equal((saved.json() as AgentRecord).description, 'Knows Gannet Rock');
        assert.deepEqual((saved.json() as AgentRecord).document_ids, [fileId]);

        await page.getByRole('link', { name: 'All Custom GPTs' }).click();
        await row.getByRole('button', { name: `Share ${AGENT}` }).click();
        await page.getByRole('heading', { name: `Share "${AGENT}"` }).waitFor();
        await page.getByLabel('User ID').fill(memberId());
        await page.getByLabel('Role', { exact: true }).selectOption('owner');
        await page.getByRole('button', { name: 'Share', exact: true }).click();
        await page.getByText(`Shared with ${memberId()} as Owner.`).waitFor();
        await harness.screenshot(page, 'agents');
      });
    });

    describe('as the member', function () {
      const session = signedIn('member');

      it('finds the shared document under "Shared with me", not under "Mine", without a share button, and in the RAG picker', async function () {
        const { page } = session;
        await nav(page, 'Files');
        const tabs = page.getByRole('navigation', { name: 'Scope' });
        await tabs.getByRole('link', { name: 'Shared with me' }).click();
        const row = page.locator(`tr[data-name="${DOCUMENT}"]`);
        await row.getByText('Shared with you (Viewer)').waitFor();
        await row.locator('[data-status="RAG Available"]').waitFor();
        assert.equal(await row.getByRole('button', { name: `Share ${DOCUMENT}` }).count(), 0);
        assert.equal(await row.getByRole('button', { name: `Move ${DOCUMENT}` }).count(), 0);
        await assertAccessible(page, 'files shared with the member');
        await tabs.getByRole('link', { name: 'Mine' }).click();
        await page.getByText('Nothing here yet.').waitFor();
        assert.equal(await row.count(), 0);

        await nav(page, 'Custom GPTs');
        await page.getByRole('link', { name: 'New Custom GPT' }).click();
        await page
          .getByTestId('rag-picker')
          .getByRole('checkbox', { name: `${DOCUMENT} (shared with you)` })
          .waitFor();
        await page.getByRole('link', { name: 'All Custom GPTs' }).click();
      });

      it('shows the share button only while the member owns the Custom GPT; a 403 from the panel is shown in words', async function () {
        const { page } = session;
        const row = page.locator(`tr[data-agent="${AGENT}"]`);
        await row.getByRole('button', { name: `Share ${AGENT}` }).waitFor();
        // The admin lowers the member to viewer while the list is on screen.
        const lowered = await admin('POST', `/v1/agents/${agentId}/shares`, {
          target_type: 'user',
          target_id: memberId(),
          role: 'viewer',
        });
        assert.equal(lowered.status, 200, lowered.text);
        expected.push(`403 GET /v1/agents/${agentId}/shares`);
        await row.getByRole('button', { name: `Share ${AGENT}` }).click();
        const alert = page.getByRole('alert').filter({ hasText: 'agent_share_panel_denied' });
        await alert.waitFor();
        assert.match(await alert.innerText(), /You do not have permission for this/);

        await page.reload();
        await row.getByText('Viewer').waitFor();
        assert.equal(await row.getByRole('button', { name: `Share ${AGENT}` }).count(), 0);
        assert.equal(await row.getByRole('link', { name: `Edit ${AGENT}` }).count(), 0);
        assert.equal(await row.getByRole('button', { name: `Delete ${AGENT}` }).count(), 0);
        await assertAccessible(page, 'Custom GPTs of a viewer');
      });
    });
  });
});
