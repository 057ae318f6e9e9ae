// What the portal's browser suites share: the API (and, when asked, the operator) started for
// the suite, Debian's Chromium through playwright-core, sign-in through Keycloak's real login
// page, axe-core on a page, and a check after each test that no page logged a console error,
// broke the CSP or had a request refused that the test did not expect.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { repoRoot, type ManagedProcess } from '@aiplane/hack';
import { keycloak, startTestApi, type TestApi } from './api-helpers.js';
import { kcAdmin } from './keycloak-admin.js';
import { startOperatorProcess } from './operator-process.js';

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

export interface PortalHarness {
  /** The API of the suite (set once the suite's first `before` hook ran). */
  readonly api: TestApi;
  readonly browser: Browser;
  /** Refusals a test provokes on purpose (`<status> <method> <path>`), each seen once. */
  readonly expected: string[];
  /** The portal's address of `path` (below `/portal/`). */
  readonly portal: (path?: string) => string;
  /** Reports the page's console errors, CSP violations and failed requests to the suite. */
  readonly watch: (page: Page) => void;
  /** axe-core on the page as it is: no serious or critical violation. */
  readonly assertAccessible: (page: Page, what: string) => Promise<void>;
  /** Signs in through Keycloak's own login page, starting from the portal; the overview then. */
  readonly signIn: (context: BrowserContext, user: 'admin' | 'member') => Promise<Page>;
}

/**
 * Registers the suite's hooks (call it in a `describe` body): builds the portal (cached), starts
 * the operator when `operator` is set and an API named `name` with `env`, lets the portal client
 * accept the API's origin, launches Chromium; after each test, fails a passing test that left
 * console errors, failed requests or expected refusals not seen.
 */
export function portalHarness(
  name: string,
  env: Record<string, string> = {},
  opts: { operator?: boolean } = {},
): PortalHarness {
  let api: TestApi | undefined;
  let operator: ManagedProcess | undefined;
  let browser: Browser | undefined;
  let axeSource = '';
  const problems: string[] = [];
  const expected: string[] = [];
  const started = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`the portal harness has not started ${what}`);
    return v;
  };
  const portal = (path = '') => `${started(api, 'the API').url}/portal/${path}`;

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
    if (opts.operator) operator = startOperatorProcess();
    api = await startTestApi(name, env);
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

  return {
    get api() {
      return started(api, 'the API');
    },
    get browser() {
      return started(browser, 'Chromium');
    },
    expected,
    portal,
    watch,
    assertAccessible,
    signIn,
  };
}
