import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  assertCode,
  assertValidationFailed,
  keycloak,
  startTestApi,
  type DevUser,
  type TestApi,
} from './api-helpers.js';
import { caller, type Call } from './fixtures/index.js';

interface Theme {
  product_name: string;
  font_family: string;
  corner_radius_px: number;
  light: Record<string, string>;
  dark: Record<string, string>;
}

describe('branding theme: GET, PUT, preview, reset per organization', function () {
  let api: TestApi;
  let acme: string;
  const other = randomUUID();
  const as = (user: DevUser, organizationId = acme): Call => caller(api.url, user, organizationId);
  let defaults: Theme;
  const custom = (): Theme => ({
    ...defaults,
    product_name: 'Acme AI',
    font_family: 'Inter',
    corner_radius_px: 12,
    light: { ...defaults.light, primary: '#ff5500' },
  });

  before(async function () {
    api = await startTestApi('branding');
    acme = keycloak().organization.id;
    for (const org of [acme, other]) await as('admin', org)('POST', '/v1/branding/theme/reset');
    defaults = (await as('member')('GET', '/v1/branding/theme')).json() as Theme;
  });

  after(async function () {
    for (const org of [acme, other]) await as('admin', org)('POST', '/v1/branding/theme/reset');
    await api?.close();
  });

  it('answers the default theme until one is saved, then the saved one, to any caller with can_access_api', async function () {
    assert.equal(defaults.product_name, 'aiplane');
    assert.match(defaults.light.primary ?? '', /^#[0-9a-f]{6}$/);
    const saved = await as('admin')('PUT', '/v1/branding/theme', custom());
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.json(), custom());
    assert.deepEqual((await as('member')('GET', '/v1/branding/theme')).json(), custom());
    // Another organization keeps its own.
    assert.deepEqual((await as('admin', other)('GET', '/v1/branding/theme')).json(), defaults);
  });

  it('previews a theme as CSS custom properties without storing it', async function () {
    const before = (await as('admin')('GET', '/v1/branding/theme')).json();
    const preview = { ...custom(), product_name: 'Preview only', corner_radius_px: 4 };
    const r = await as('admin')('POST', '/v1/branding/theme/preview', preview);
    assert.equal(r.status, 200, r.text);
    const body = r.json() as {
      theme: Theme;
      variables: { light: Record<string, string>; dark: Record<string, string> };
      css: string;
    };
    assert.deepEqual(body.theme, preview);
    assert.equal(body.variables.light['--aiplane-color-primary'], '#ff5500');
    assert.equal(body.variables.dark['--aiplane-radius'], '4px');
    assert.equal(body.variables.light['--aiplane-font-family'], '"Inter", system-ui, sans-serif');
    assert.match(body.css, /^:root \{\n {2}--aiplane-font-family/);
    assert.match(body.css, /:root\[data-theme="dark"\] \{/);
    assert.deepEqual((await as('admin')('GET', '/v1/branding/theme')).json(), before);
  });

  it('refuses a theme that is not the typed one with field errors, storing nothing', async function () {
    const before = (await as('admin')('GET', '/v1/branding/theme')).json();
    const refusals: [Record<string, unknown>, string][] = [
      [
        { ...custom(), light: { ...custom().light, primary: 'red; background:url(x)' } },
        'light.primary',
      ],
      [
        { ...custom(), light: { ...custom().light, primary: 'expression(alert(1))' } },
        'light.primary',
      ],
      [{ ...custom(), dark: { ...custom().dark, text: '#12345' } }, 'dark.text'],
      [{ ...custom(), font_family: 'Comic Sans"; } * { display:none' }, 'font_family'],
      [{ ...custom(), corner_radius_px: 25 }, 'corner_radius_px'],
      [{ ...custom(), product_name: '<script>alert(1)</script>' }, 'product_name'],
      [{ ...custom(), product_name: '' }, 'product_name'],
      [{ ...custom(), logo_url: 'https://evil.example/x.svg' }, 'logo_url'],
      [{ ...custom(), light: { ...custom().light, extra: '#fff' } }, 'light.extra'],
    ];
    const noDark: Record<string, unknown> = { ...custom() };
    delete noDark.dark;
    refusals.push([noDark, 'dark']);
    for (const [body, field] of refusals) {
      assertValidationFailed(await as('admin')('PUT', '/v1/branding/theme', body), field);
      assertValidationFailed(await as('admin')('POST', '/v1/branding/theme/preview', body), field);
    }
    assert.deepEqual((await as('admin')('GET', '/v1/branding/theme')).json(), before);
  });

  it('resets to the defaults', async function () {
    await as('admin')('PUT', '/v1/branding/theme', custom());
    const r = await as('admin')('POST', '/v1/branding/theme/reset');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json(), defaults);
    assert.deepEqual((await as('member')('GET', '/v1/branding/theme')).json(), defaults);
  });

  it('needs can_edit_config to save, preview or reset', async function () {
    const member = as('member');
    assertCode(await member('PUT', '/v1/branding/theme', custom()), 403, 'permission_denied');
    assertCode(
      await member('POST', '/v1/branding/theme/preview', custom()),
      403,
      'permission_denied',
    );
    assertCode(await member('POST', '/v1/branding/theme/reset'), 403, 'permission_denied');
    assertCode(await as('outsider')('GET', '/v1/branding/theme'), 403, 'permission_denied');
  });
});
