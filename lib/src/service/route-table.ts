import type { Express } from 'express';

/** One mounted route: an HTTP method (upper case, `ALL` for `router.all`) and its full path. */
export interface MountedRoute {
  method: string;
  path: string;
}

/** A mounted route with what serves it: its handlers, and the routers it is mounted through. */
export interface WalkedRoute extends MountedRoute {
  /** The route's own handlers, in order. */
  handlers: unknown[];
  /** The routers between the app and the route, outermost first. */
  routers: unknown[];
}

interface Layer {
  rawPath?: unknown;
  handle?: { stack?: Layer[] };
  route?: { path: unknown; methods: Record<string, boolean>; stack?: Layer[] };
}

const join = (prefix: string, path: string) =>
  `${prefix}${path === '/' ? '' : path}`.replace(/\/+/g, '/') || '/';

/** Every route an express app serves with its handlers and routers (see {@link routeTable}). */
export function walkRoutes(app: Express): WalkedRoute[] {
  const routes: WalkedRoute[] = [];
  const walk = (stack: readonly Layer[], prefix: string, routers: unknown[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        const handlers = (layer.route.stack ?? []).map((l) => l.handle);
        for (const path of paths) {
          for (const method of Object.keys(layer.route.methods)) {
            routes.push({
              method: method === '_all' ? 'ALL' : method.toUpperCase(),
              path: join(prefix, String(path)),
              handlers,
              routers,
            });
          }
        }
      } else if (layer.handle?.stack) {
        const mount = typeof layer.rawPath === 'string' ? layer.rawPath : '';
        walk(layer.handle.stack, join(prefix, mount), [...routers, layer.handle]);
      }
    }
  };
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  walk(router.stack, '', []);
  return routes;
}

/**
 * Every route an express app serves, walked from its router's stack (nested routers
 * included, their mount paths prefixed). What a test of "every route is guarded" walks, so a
 * route added later is in it without anyone listing it.
 */
export function routeTable(app: Express): MountedRoute[] {
  return walkRoutes(app).map(({ method, path }) => ({ method, path }));
}
