import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors/api-error.js';
import { isUuid } from '../service/validation.js';
import type { Authenticator } from './authenticator.js';
import { hasPermission, isPlatformAdmin, type Permission, type Principal } from './principal.js';

/** Header a platform admin uses to choose the organization of a request (docs/adr/0004). */
export const ORGANIZATION_HEADER = 'x-aiplane-organization';

export function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m?.[1]?.trim();
}

/** The credential headers, each of which a request may carry once. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key'];

/**
 * A credential header sent twice, or undefined. Node keeps the first Authorization and joins
 * X-Api-Keys with a comma; a proxy in front may pick another one: refused (docs/adr/0042).
 */
export function repeatedCredentialHeader(rawHeaders: string[]): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    if (!CREDENTIAL_HEADERS.includes(name)) continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

export function authenticate(authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    const repeated = repeatedCredentialHeader(req.rawHeaders);
    if (repeated !== undefined) {
      throw new ApiError('bad_request', `send the ${repeated} header once`);
    }
    const apiKey = req.get('x-api-key');
    res.locals.principal = await authenticator.authenticate({
      apiKey: apiKey === undefined ? undefined : apiKey.trim(),
      bearer: bearerOf(req.get('authorization')),
    });
    next();
  };
}

export function principalOf(res: Response): Principal {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new Error('route mounted without authenticate()');
  return p;
}

/**
 * The caller must hold `permission` in the organization the request acts in (docs/adr/0022).
 * When no organization can be chosen yet (several and no header, or none), holding it anywhere
 * lets the request on; a route that then acts in an organization still needs one named
 * (`callerOrganization`, 400 `organization_required`) and is checked against it by its own
 * guard, since the organization a request acts in is decided the same way everywhere.
 */
export function requirePermission(permission: Permission): RequestHandler {
  return (req, res, next) => {
    const principal = principalOf(res);
    // Held nowhere: refused as such, before the organization is looked at.
    const held =
      hasPermission(principal, permission) &&
      hasPermission(principal, permission, actingOrganization(req, principal));
    if (!held) {
      throw new ApiError('permission_denied', `this route needs the ${permission} permission`);
    }
    next();
  };
}

/** The organization a request acts in, or undefined when none can be chosen (no header). */
export function actingOrganization(req: Request, principal: Principal): string | undefined {
  try {
    return organizationOf(req, principal);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'organization_required') return undefined;
    throw err;
  }
}

export function requirePlatformAdmin(
  code: 'permission_denied' | 'mcp_server_management_denied' = 'permission_denied',
): RequestHandler {
  return (_req, res, next) => {
    if (!isPlatformAdmin(principalOf(res))) {
      throw new ApiError(code, 'this route needs the platform-admin role');
    }
    next();
  };
}

/**
 * The organization a request acts in. A member acts in their token's organization (with
 * several, the header picks one of theirs); a platform admin may name any organization.
 */
/** The organization the authenticated caller of this request acts in (see organizationOf). */
export function callerOrganization(req: Request, res: Response): string {
  return organizationOf(req, principalOf(res));
}

export function organizationOf(req: Request, principal: Principal): string {
  return organizationNamed(principal, req.get(ORGANIZATION_HEADER));
}

/**
 * The organization a caller acts in when `given` (an id, or an alias of one of theirs) names
 * one or nothing does: organizationOf's rules, for a request whose organization comes from
 * elsewhere than the header (a WebSocket's query: browsers set no headers on one).
 */
export function organizationNamed(principal: Principal, given: string | undefined): string {
  const named = given?.trim();
  if (named) {
    const own = principal.organizations.find(
      (o) => o.id === named || o.id === named.toLowerCase() || o.alias === named,
    );
    if (own) return own.id;
    if (isPlatformAdmin(principal)) {
      if (!isUuid(named)) {
        throw new ApiError(
          'organization_invalid',
          `name the organization by its id (a UUID), not "${named.slice(0, 64)}"`,
        );
      }
      // Keycloak's ids are lower case; an upper-case spelling must not become another
      // organization's rows (which the sweep of unrecorded organizations would remove).
      return named.toLowerCase();
    }
    throw new ApiError(
      'organization_access_denied',
      `you are not a member of organization ${named.slice(0, 64)}`,
    );
  }
  const [only, ...more] = principal.organizations;
  if (only && more.length === 0) return only.id;
  throw new ApiError(
    'organization_required',
    only
      ? `you belong to several organizations: name one in the ${ORGANIZATION_HEADER} header`
      : `no organization: name one in the ${ORGANIZATION_HEADER} header`,
  );
}
