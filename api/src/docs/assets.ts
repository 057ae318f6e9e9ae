import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The browser files the documentation pages load, from their npm packages (no CDN: the
 * machine and its users may be offline). The image bundle copies exactly these to
 * `assets/<page>/<file name>` beside its entry (hack/src/image/bundle.ts).
 */
export const DOCS_ASSETS = {
  'swagger-ui': { package: 'swagger-ui-dist', files: ['swagger-ui-bundle.js', 'swagger-ui.css'] },
  scalar: { package: '@scalar/api-reference', files: ['dist/browser/standalone.js'] },
} as const;

export type DocsPage = keyof typeof DOCS_ASSETS;

/** Where the bundle keeps the assets, relative to its root: `assets/<page>/<file name>`. */
export const bundledAssetPath = (page: DocsPage, file: string): string =>
  join('assets', page, basename(file));

/** The directory of an installed package, searched upwards from `from` (node's own walk). */
export function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The files of a page by their served name: from the image bundle's `assets/` (beside the
 * entry, or one level up from a chunk) when there is one, else from the installed package.
 */
export function assetFiles(page: DocsPage): Record<string, string> {
  const here = dirname(fileURLToPath(import.meta.url));
  const spec = DOCS_ASSETS[page];
  const bundled = [here, dirname(here)].find((root) =>
    spec.files.every((f) => existsSync(join(root, bundledAssetPath(page, f)))),
  );
  const pkg = bundled === undefined ? packageDir(spec.package, here) : undefined;
  if (bundled === undefined && pkg === undefined) {
    throw new Error(
      `the ${page} assets are missing: neither bundled nor ${spec.package} installed`,
    );
  }
  return Object.fromEntries(
    spec.files.map((f) => [
      basename(f),
      bundled !== undefined ? join(bundled, bundledAssetPath(page, f)) : join(pkg ?? '', f),
    ]),
  );
}
