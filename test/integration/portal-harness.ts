// What the portal's browser suites share: the API serving the built portal (with an operator),
// Debian's Chromium (playwright-core), sign-in through Keycloak's real login page, a watch for
// console errors and failed requests, axe-core, and screenshots for the README.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { freePort, repoRoot, type ManagedProcess } from '@aiplane/hack';
import { keycloak, startTestApi, type TestApi } from './api-helpers.js';
import { kcAdmin } from './keycloak-admin.js';
import { startOperatorProcess } from './operator-process.js';

const CHROMIUM = process.env.AIPLANE_CHROMIUM ?? '/usr/bin/chromium';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/**
 * Where the screenshots go: the README's (docs/screenshots/<name>-<scheme>.png) when
 * AIPLANE_SCREENSHOTS=1, else a directory of this run (they show the run's random tenant and
 * ports: written into the checkout on every run they would change it every time).
 */
export const SCREENSHOTS =
  process.env.AIPLANE_SCREENSHOTS === '1'
    ? join(repoRoot, 'docs/screenshots')
    : join(tmpdir(), 'aiplane-portal-screenshots');
export const VIEWPORT = { width: 1280, height: 800 };

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

export interface PortalHarness {
  readonly api: TestApi;
  readonly browser: Browser;
  /** What the pages reported: console errors (CSP violations among them) and failed requests. */
  readonly problems: string[];
  /** Refusals a test provokes on purpose (`<status> <method> <path>`), each seen once. */
  readonly expected: string[];
  /** The portal's address of a route (below /portal/). */
  portal: (path?: string) => string;
  watch: (page: Page) => void;
  assertAccessible: (page: Page, what: string) => Promise<void>;
  signIn: (context: BrowserContext, user: 'admin' | 'member') => Promise<Page>;
  /** The page as it is, light then dark, to docs/screenshots/<name>-light|dark.png. */
  screenshot: (page: Page, name: string) => Promise<void>;
}

/**
 * Registers the suite's hooks (call it inside `describe`): the build, an operator, the API on
 * a port known before it starts (`env` may name its origin: the OAuth return address), the
 * portal client's web origin, Chromium; after each test, nothing unexpected may have happened.
 */
export function usePortal(
  name: string,
  env: (origin: string) => Record<string, string> = () => ({}),
): PortalHarness {
  let api: TestApi | undefined;
  let browser: Browser | undefined;
  let operator: ManagedProcess | undefined;
  let axeSource = '';
  const problems: string[] = [];
  const expected: string[] = [];

  const h: PortalHarness = {
    get api() {
      assert.ok(api, 'the API runs');
      return api;
    },
    get browser() {
      assert.ok(browser, 'Chromium runs');
      return browser;
    },
    problems,
    expected,
    portal: (path = '') => `${h.api.url}/portal/${path}`,

    watch(page) {
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) {
          problems.push(m.text());
        }
      });
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('response', (r) => {
        const url = new URL(r.url());
        // Without a logo the API answers 404 branding_logo_not_found: the portal shows the name.
        const refusal = `${r.status()} ${r.request().method()} ${url.pathname}`;
        const wanted = expected.indexOf(refusal);
        if (wanted >= 0) {
          expected.splice(wanted, 1);
          return;
        }
        if (
          r.status() >= 400 &&
          url.pathname !== '/favicon.ico' &&
          url.pathname !== '/v1/branding/logo'
        ) {
          problems.push(`${r.status()} ${r.url()}`);
        }
      });
      page.on('requestfailed', (r) => {
        // Navigating away cancels what the page was still loading.
        if (r.failure()?.errorText !== 'net::ERR_ABORTED') {
          problems.push(`${r.url()}: ${r.failure()?.errorText}`);
        }
      });
    },

    /** axe-core on the page as it is: no serious or critical violation. */
    async assertAccessible(page, what) {
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
    },

    /** Signs in through Keycloak's own login page, starting from the portal. */
    async signIn(context, user) {
      const page = await context.newPage();
      h.watch(page);
      await page.goto(h.portal());
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await h.assertAccessible(page, 'the sign-in page');
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
    },

    async screenshot(page, name) {
      await mkdir(SCREENSHOTS, { recursive: true });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        // The theme is applied for the scheme the page starts in.
        await page.reload();
        await page.locator('main h1').first().waitFor();
        // Until what the page loads is there (a paragraph that says only "Loading…").
        await page
          .locator('p', { hasText: /^Loading…$/ })
          .first()
          .waitFor({ state: 'detached' });
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`) });
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.reload();
    },
  };

  before(async function () {
    this.timeout(120_000);
    // The build the API serves, current (cached: nothing to do when the sources are unchanged).
    await promisify(execFile)(join(repoRoot, 'hack/lib/build-portal.sh'));
    axeSource = await readFile(AXE, 'utf8');
    operator = startOperatorProcess();
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    api = await startTestApi(name, {
      AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS: 'true',
      AIPLANE_API_PORT: String(port),
      ...env(origin),
    });
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
  return h;
}

/** An element's computed background colour (`rgb(r, g, b)`), as the browser paints it. */
export async function backgroundOf(locator: Locator): Promise<string> {
  return locator.evaluate(
    (el) =>
      (
        globalThis as unknown as {
          getComputedStyle: (e: unknown) => { backgroundColor: string };
        }
      ).getComputedStyle(el).backgroundColor,
  );
}
