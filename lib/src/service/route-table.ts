import type { Express } from 'express';

/** One mounted route: an HTTP method (upper case, `ALL` for `router.all`) and its full path. */
export interface MountedRoute {
  method: string;
  path: string;
}

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

const join = (prefix: string, path: string) =>
  `${prefix}${path === '/' ? '' : path}`.replace(/\/+/g, '/') || '/';

/**
 * Every route an express app serves, walked from its router's stack (nested routers
 * included, their mount paths prefixed). What a test of "every route is guarded" walks, so a
 * route added later is in it without anyone listing it.
 */
export function routeTable(app: Express): MountedRoute[] {
  const routes: MountedRoute[] = [];
  const walk = (stack: readonly Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const method of Object.keys(layer.route.methods)) {
            routes.push({
              method: method === '_all' ? 'ALL' : method.toUpperCase(),
              path: join(prefix, String(path)),
            });
          }
        }
      } else if (layer.handle?.stack) {
        const mount = typeof layer.rawPath === 'string' ? layer.rawPath : '';
        walk(layer.handle.stack, join(prefix, mount));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return routes;
}
