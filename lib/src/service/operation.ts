import type { Static, TSchema } from '@sinclair/typebox';
import type { Express, IRouter, Request, RequestHandler, Response, Router } from 'express';
import { callerOrganization, requirePermission, requirePlatformAdmin } from '../auth/middleware.js';
import type { Permission } from '../auth/principal.js';
import type { ErrorCode } from '../errors/codes.js';
import { walkRoutes } from './route-table.js';
import { validator } from './validation.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented response. A schema with a `title` becomes a named component. */
export interface ResponseSpec {
  description: string;
  /** The JSON body; none for an empty answer (204) or a non-JSON one (see `contentType`). */
  schema?: TSchema;
  /**
   * A body that is not JSON (`text/html`, …); documented as a string. With `schema` too, the
   * answer is either (a `text/event-stream` alternative the query asks for: download logs).
   */
  contentType?: string;
  headers?: Record<string, string>;
}

/**
 * What one route does, declared once: the route is mounted from it, its guards and body and
 * query checks run from it, and the OpenAPI document is written from it (docs/adr/0021).
 */
export interface OperationSpec<
  B extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  O extends boolean = boolean,
> {
  method: HttpMethod;
  /** The express path, relative to the router (`/:id`); `:name` becomes `{name}`. */
  path: string;
  /** Unique in the document; what generated clients name the call. */
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** Served without credentials (`security: []`); only outside an authenticated router. */
  public?: boolean;
  /** A permission the route needs beyond its router's (checked here with requirePermission). */
  permission?: Permission;
  /** Only platform admins (checked here); the value is the refusal's code. */
  platformAdmin?: 'permission_denied' | 'mcp_server_management_denied';
  /**
   * The route acts in the caller's organization: the X-Aiplane-Organization header is
   * documented, and the organization is chosen before the handler (its errors included).
   */
  organization?: O;
  /** The JSON body, validated here before the handler (422 ValidationError). */
  body?: B;
  /**
   * The JSON body when the service validates it itself with this same schema (a check that
   * must come first or a message of its own); documented, not checked here.
   */
  serviceBody?: TSchema;
  /**
   * A body that is not JSON (an uploaded file): read by `parser` after the guards, documented
   * as binary content of these media types.
   */
  binaryBody?: {
    mediaTypes: readonly string[];
    description: string;
    parser: RequestHandler;
    /**
     * The parts of a `multipart/form-data` body (an object schema, its file parts strings of
     * `contentMediaType`), checked by the service: documented, and its refusals (422) too.
     */
    form?: TSchema;
  };
  /** Query parameters (an object of strings), validated here before the handler. */
  query?: Q;
  /** Path parameters' schemas; a parameter not named here is a string. */
  params?: Record<string, TSchema>;
  /** Request headers besides the credentials and the organization. */
  headers?: Record<string, { description: string; required?: boolean }>;
  /** Answers by status. */
  responses: Record<number, ResponseSpec>;
  /**
   * Codes the route itself can refuse with. Authentication, the permissions, the
   * organization and validation add theirs by themselves.
   */
  errors?: readonly ErrorCode[];
  /**
   * A WebSocket upgrade (served outside express): documented as its GET with
   * `x-aiplane-websocket`, authenticated by the `token` query parameter, no 422.
   */
  websocket?: true;
  /** Vendor extensions (`x-…`) copied into the operation. */
  extensions?: Record<`x-${string}`, unknown>;
}

/** What a handler gets besides req and res: the checked body and query, the organization. */
export interface OperationInput<B, Q, O extends boolean> {
  body: B extends TSchema ? Static<B> : unknown;
  query: Q extends TSchema ? Static<Q> : unknown;
  organizationId: O extends true ? string : undefined;
}

/** Path parameters are `:name` segments: always strings (wildcards are not documented). */
export type OperationRequest = Request<Record<string, string>>;

export type OperationHandler<B, Q, O extends boolean> = (
  req: OperationRequest,
  res: Response,
  input: OperationInput<B, Q, O>,
) => void | Promise<void>;

const DECLARED = new WeakMap<object, OperationSpec>();
const GUARDS = new WeakMap<object, Permission>();

/**
 * Declares a route on `router`: mounts it with its guards (platform admin, `permission`),
 * checks its query and body against the declared schemas, chooses the caller's organization
 * when it acts in one, then runs `handler`. The declaration is what the OpenAPI document says
 * about the route (see {@link documentedRoutes}).
 */
export function operation<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  O extends boolean = false,
>(router: IRouter, spec: OperationSpec<B, Q, O>, handler: OperationHandler<B, Q, O>): void {
  if ([spec.body, spec.serviceBody, spec.binaryBody].filter((b) => b !== undefined).length > 1) {
    throw new Error(`${spec.operationId}: declare one of body, serviceBody and binaryBody`);
  }
  const guards: RequestHandler[] = [];
  if (spec.platformAdmin) guards.push(requirePlatformAdmin(spec.platformAdmin));
  if (spec.permission) guards.push(requirePermission(spec.permission));
  if (spec.binaryBody) guards.push(spec.binaryBody.parser);
  const parseQuery = spec.query ? validator(spec.query) : undefined;
  const parseBody = spec.body ? validator(spec.body) : undefined;
  const run: RequestHandler = async (req, res) => {
    const organizationId = spec.organization === true ? callerOrganization(req, res) : undefined;
    const input = {
      organizationId,
      query: parseQuery ? parseQuery(req.query) : req.query,
      body: parseBody ? parseBody(req.body) : (req.body as unknown),
    } as OperationInput<B, Q, O>;
    await handler(req as OperationRequest, res, input);
  };
  DECLARED.set(run, spec);
  router[spec.method](spec.path, ...guards, run);
}

/**
 * Authenticates every request through `router` and requires `permission` of it; the document
 * gives the router's routes the credentials' security schemes and the permission.
 */
export function authenticatedRouter(
  router: Router,
  authenticate: RequestHandler,
  permission: Permission,
): Router {
  router.use(authenticate, requirePermission(permission));
  GUARDS.set(router, permission);
  return router;
}

/** A route of the app with its declaration (undefined: mounted without {@link operation}). */
export interface DocumentedRoute {
  method: string;
  /** The full express path (`/v1/agents/:config_id`). */
  path: string;
  operation: OperationSpec | undefined;
  /** Whether the route sits behind an {@link authenticatedRouter}. */
  authenticated: boolean;
  /** Every permission the route needs: its routers' and its own. */
  permissions: Permission[];
}

/** Every route the app mounts, with its declaration, authentication and permissions. */
export function documentedRoutes(app: Express): DocumentedRoute[] {
  return walkRoutes(app).map((r) => {
    const operation = r.handlers
      .map((h) => (typeof h === 'function' ? DECLARED.get(h) : undefined))
      .find((o) => o !== undefined);
    const guarded = r.routers.flatMap((router) => {
      const p = typeof router === 'function' ? GUARDS.get(router) : undefined;
      return p === undefined ? [] : [p];
    });
    const permissions = [...guarded, ...(operation?.permission ? [operation.permission] : [])];
    return {
      method: r.method,
      path: r.path,
      operation,
      authenticated: guarded.length > 0,
      permissions: [...new Set(permissions)],
    };
  });
}
