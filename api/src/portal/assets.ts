import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the image bundle keeps the built portal, relative to its root (hack/src/image/bundle.ts). */
export const BUNDLED_PORTAL_DIR = join('assets', 'portal');

/** Where `vite build` writes the portal in a checkout (portal/vite.config.ts). */
export const PORTAL_BUILD_DIR = join('portal', 'dist', 'app');

/**
 * The built portal's directory: the image bundle's `assets/portal/` (beside the entry, or one
 * level up from a chunk), else the checkout's build; undefined when neither has an index.html
 * (the portal was not built).
 */
export function portalDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [
    join(here, BUNDLED_PORTAL_DIR),
    join(dirname(here), BUNDLED_PORTAL_DIR),
    // api/src/portal → the repository root
    resolve(here, '..', '..', '..', PORTAL_BUILD_DIR),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}
