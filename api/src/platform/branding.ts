import { type Static, Type } from '@sinclair/typebox';
import { validator } from '@aiplane/lib/service';
import type { ThemeStore } from './branding-store.js';

/** Fonts a theme may name: widely available or self-hosted by the portal, no remote loading. */
export const SAFE_FONTS = [
  'system-ui',
  'Inter',
  'Roboto',
  'Open Sans',
  'Noto Sans',
  'Source Sans 3',
  'IBM Plex Sans',
  'Lato',
  'Georgia',
  'ui-monospace',
] as const;

/** A CSS hex color: #rgb, #rgba, #rrggbb or #rrggbbaa (nothing that could carry CSS syntax). */
const Color = Type.String({ pattern: '^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' });
const PALETTE_KEYS = [
  'primary',
  'on_primary',
  'background',
  'surface',
  'text',
  'muted',
  'accent',
  'danger',
] as const;
const Palette = Type.Object(
  Object.fromEntries(PALETTE_KEYS.map((k) => [k, Color])) as Record<
    (typeof PALETTE_KEYS)[number],
    typeof Color
  >,
  { additionalProperties: false, title: 'Palette' },
);

export const ThemeSchema = Type.Object(
  {
    product_name: Type.String({ minLength: 1, maxLength: 60, pattern: '^[^<>\\u0000-\\u001f]+$' }),
    font_family: Type.Union(SAFE_FONTS.map((f) => Type.Literal(f))),
    corner_radius_px: Type.Integer({ minimum: 0, maximum: 24 }),
    light: Palette,
    dark: Palette,
  },
  { additionalProperties: false, title: 'Theme' },
);
export type Theme = Static<typeof ThemeSchema>;
const parseTheme = validator(ThemeSchema);

export const DEFAULT_THEME: Theme = {
  product_name: 'aiplane',
  font_family: 'system-ui',
  corner_radius_px: 8,
  light: {
    primary: '#2457d6',
    on_primary: '#ffffff',
    background: '#ffffff',
    surface: '#f4f6fa',
    text: '#111827',
    muted: '#6b7280',
    accent: '#0f9d8a',
    danger: '#c62828',
  },
  dark: {
    primary: '#7aa2ff',
    on_primary: '#0b1020',
    background: '#0b1020',
    surface: '#151b2e',
    text: '#e5e7eb',
    muted: '#9ca3af',
    accent: '#34d1bf',
    danger: '#ef5350',
  },
};

const Variables = Type.Record(Type.String(), Type.String());
/** What a preview answers: the theme and the CSS custom properties the portal applies. */
export const ComputedThemeSchema = Type.Object(
  {
    theme: ThemeSchema,
    variables: Type.Object({ light: Variables, dark: Variables }),
    css: Type.String({ description: 'the variables as a style sheet' }),
  },
  { title: 'ComputedTheme' },
);
export type ComputedTheme = Static<typeof ComputedThemeSchema>;

const fontStack = (f: Theme['font_family']) =>
  f === 'system-ui' || f === 'ui-monospace' ? `${f}, sans-serif` : `"${f}", system-ui, sans-serif`;

/** The CSS custom properties of a (validated) theme: `--aiplane-<name>`. */
export function computeTheme(theme: Theme): ComputedTheme {
  const common = {
    '--aiplane-font-family': fontStack(theme.font_family),
    '--aiplane-radius': `${theme.corner_radius_px}px`,
  };
  const palette = (p: Theme['light']) =>
    Object.fromEntries(
      Object.entries(p).map(([k, v]) => [`--aiplane-color-${k.replace(/_/g, '-')}`, v]),
    );
  const variables = {
    light: { ...common, ...palette(theme.light) },
    dark: { ...common, ...palette(theme.dark) },
  };
  const block = (selector: string, vars: Record<string, string>) =>
    `${selector} {\n${Object.entries(vars)
      .map(([k, v]) => `  ${k}: ${v};`)
      .join('\n')}\n}`;
  return {
    theme,
    variables,
    css: `${block(':root', variables.light)}\n${block(':root[data-theme="dark"]', variables.dark)}\n`,
  };
}

/** The branding theme of organizations: defaults until one is saved. */
export class Branding {
  constructor(private readonly store: ThemeStore) {}

  async theme(organizationId: string): Promise<Theme> {
    return (await this.store.get<Theme>(organizationId)) ?? DEFAULT_THEME;
  }

  /** Replaces the theme (the whole of it, validated: 422 with field errors). */
  async save(organizationId: string, body: unknown): Promise<Theme> {
    const theme = parseTheme(body);
    await this.store.put(organizationId, theme);
    return theme;
  }

  /** Validates a theme and answers it computed, storing nothing. */
  preview(body: unknown): ComputedTheme {
    return computeTheme(parseTheme(body));
  }

  /** Back to the defaults. */
  async reset(organizationId: string): Promise<Theme> {
    await this.store.remove(organizationId);
    return DEFAULT_THEME;
  }
}
