import assert from 'node:assert/strict';
import { validator } from '@aiplane/lib/service';
import { computeTheme, DEFAULT_THEME, SAFE_FONTS, ThemeSchema } from './branding.js';

describe('branding theme (pure rules)', () => {
  it('has defaults that satisfy its own schema', () => {
    assert.deepEqual(validator(ThemeSchema)(structuredClone(DEFAULT_THEME)), DEFAULT_THEME);
  });

  it('computes one custom property per palette color, the radius and a quoted font stack', () => {
    const { variables, css } = computeTheme({ ...DEFAULT_THEME, font_family: 'IBM Plex Sans' });
    assert.equal(Object.keys(variables.light).length, 2 + Object.keys(DEFAULT_THEME.light).length);
    assert.equal(variables.light['--aiplane-color-on-primary'], DEFAULT_THEME.light.on_primary);
    assert.equal(variables.dark['--aiplane-color-background'], DEFAULT_THEME.dark.background);
    assert.equal(variables.dark['--aiplane-font-family'], '"IBM Plex Sans", system-ui, sans-serif');
    assert.equal(
      computeTheme(DEFAULT_THEME).variables.light['--aiplane-font-family'],
      'system-ui, sans-serif',
    );
    assert.equal(css.split('{').length - 1, 2);
  });

  it('offers only fonts without quotes or CSS syntax in their names', () => {
    for (const f of SAFE_FONTS) assert.match(f, /^[A-Za-z0-9 -]+$/);
  });
});
