// The branding theme (`GET /v1/branding/theme`) as CSS custom properties on the document
// (set through the CSSOM, which the portal's CSP allows; no inline style sheet).

type Palette = Record<
  'primary' | 'on_primary' | 'background' | 'surface' | 'text' | 'muted' | 'accent' | 'danger',
  string
>;
export interface Theme {
  product_name: string;
  font_family: string;
  corner_radius_px: number;
  light: Palette;
  dark: Palette;
}

const fontStack = (f: string) =>
  f === 'system-ui' || f === 'ui-monospace' ? `${f}, sans-serif` : `"${f}", system-ui, sans-serif`;

/** The same variable names the API's preview computes (api/src/platform/branding.ts). */
export function themeVariables(theme: Theme, scheme: 'light' | 'dark'): Record<string, string> {
  return {
    '--aiplane-font-family': fontStack(theme.font_family),
    '--aiplane-radius': `${theme.corner_radius_px}px`,
    ...Object.fromEntries(
      Object.entries(theme[scheme]).map(([k, v]) => [`--aiplane-color-${k.replace(/_/g, '-')}`, v]),
    ),
  };
}

export function prefersDark(): boolean {
  return window.matchMedia('(prefers-color-scheme: dark)').matches;
}

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  const scheme = prefersDark() ? 'dark' : 'light';
  root.dataset.theme = scheme;
  for (const [name, value] of Object.entries(themeVariables(theme, scheme))) {
    root.style.setProperty(name, value);
  }
  document.title = theme.product_name;
}
