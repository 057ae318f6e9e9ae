// The interactive API documentation in Debian's Chromium (playwright-core): a person opens
// /docs or /scalar, authorizes with an API key, and tries a call.
import assert from 'node:assert/strict';
import { type Browser, chromium, type Page } from 'playwright-core';
import { call, startTestApi, tokenFor, type TestApi } from './api-helpers.js';
import { rememberSecret } from './secrets.js';

const CHROMIUM = process.env.AIPLANE_CHROMIUM ?? '/usr/bin/chromium';

describe('the API documentation pages in a browser (real API, Chromium)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let browser: Browser;
  let apiKey: string;
  let page: Page;
  /** What the page reported: console errors (CSP violations among them) and failed requests. */
  let problems: string[];

  before(async function () {
    api = await startTestApi('docs-browser');
    const r = await call(`${api.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFor('member')}` },
      body: { name: 'docs browser test' },
    });
    assert.equal(r.status, 201, r.text);
    apiKey = (r.json() as { key: string }).key;
    rememberSecret(apiKey);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  after(async function () {
    await browser?.close();
    await api?.close();
  });

  beforeEach(async function () {
    page = await browser.newPage();
    problems = [];
    page.on('console', (m) => {
      // Failed loads are reported with their address below.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) {
        problems.push(m.text());
      }
    });
    page.on('response', (r) => {
      // The browser asks for a favicon by itself; the API has none.
      if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') {
        problems.push(`${r.status()} ${r.url()}`);
      }
    });
    page.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
  });
  afterEach(async function () {
    await page?.close();
  });

  it('/docs (Swagger UI): Authorize with an API key, try GET /v1/me, see the 200 answer', async function () {
    await page.goto(`${api.url}/docs`);
    await page.locator('.swagger-ui .btn.authorize').click({ timeout: 30_000 });
    const apiKeyAuth = page.locator('.auth-container').filter({ hasText: 'ApiKey (apiKey)' });
    await apiKeyAuth.locator('input').fill(apiKey);
    await apiKeyAuth.locator('button.authorize').click();
    await page.locator('.dialog-ux button.btn-done').first().click();

    const me = page.locator('#operations-me-getMe');
    await me.locator('.opblock-summary').click();
    await me.locator('button.try-out__btn').click();
    await me.locator('button.execute').click();
    const live = me.locator('.live-responses-table');
    await live.locator('.response-col_status', { hasText: '200' }).waitFor({ timeout: 30_000 });
    const text = await live.innerText();
    assert.match(text, /"authenticated_via": "api_key"/, 'the call carried the API key');
    assert.deepEqual(problems, []);
  });

  it('/scalar (Scalar): loads the document, takes the API key, and its client sends GET /v1/me with it (200)', async function () {
    await page.goto(`${api.url}/scalar`);
    await page.getByText('Who the API takes the caller for').first().waitFor({ timeout: 30_000 });
    // The authentication block prefers the ApiKey scheme (configured in the page).
    await page.getByText('X-Api-Key').first().waitFor({ timeout: 30_000 });
    await page.locator('input.scalar-password-input').first().fill(apiKey);

    await page.locator('button.show-api-client-button', { hasText: 'get /v1/me' }).click();
    const sent = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/me', {
      timeout: 30_000,
    });
    await page
      .getByRole('button', { name: /Send get request to \/v1\/me/ })
      .locator('visible=true')
      .first()
      .click();
    const answer = await sent;
    assert.equal(answer.status(), 200);
    assert.equal(answer.request().headers()['x-api-key'], apiKey, 'the call carried the API key');
    assert.equal(
      ((await answer.json()) as { authenticated_via: string }).authenticated_via,
      'api_key',
    );
    // The client shows the answer to the person.
    await page
      .getByText(/"api_key"/)
      .first()
      .waitFor({ timeout: 30_000 });
    assert.deepEqual(problems, []);
  });
});
