import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type ErrorRequestHandler, type IRouter, type RequestHandler } from 'express';
import { ApiError } from '@aiplane/lib/errors';
import { Type } from '@sinclair/typebox';
import { operation } from '@aiplane/lib/service';
import { portalDir } from './assets.js';

export interface PortalOptions {
  /** The OpenID Connect issuer the browser signs in with. */
  issuer: string;
  /** The realm's public client of the portal (authorization code + PKCE). */
  clientId: string;
  /** The built portal (default: found by portalDir()); undefined: the portal is not built. */
  dir?: string | undefined;
}

export const PORTAL_PATH = '/portal';

/**
 * What the portal may do: its own scripts and styles only (no inline code: the theme is set
 * through the CSSOM), images from itself and blob: (the logo, read with the token), calls to
 * this origin and to the issuer (discovery, token and renewal requests), nothing framed.
 */
export function portalCsp(issuer: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    `connect-src 'self' ${new URL(issuer).origin}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

const PortalConfigSchema = Type.Object(
  {
    issuer: Type.String({ description: 'the OpenID Connect issuer' }),
    client_id: Type.String({ description: 'the public client of the portal' }),
    scope: Type.String({ description: 'the scope the portal asks for' }),
  },
  { title: 'PortalConfig' },
);

/**
 * The portal (docs/adr/0037): `GET /portal/config.json` (public: where to sign in), the built
 * files under `/portal/assets/`, and `index.html` for every other address below `/portal/`
 * (the app routes in the browser). Without a build, `/portal/` says how to build it (503).
 */
export function portalRoutes(router: IRouter, opts: PortalOptions): void {
  const csp = portalCsp(opts.issuer);
  const dir = 'dir' in opts ? opts.dir : portalDir();
  const secure: RequestHandler = (_req, res, next) => {
    res
      .set('Content-Security-Policy', csp)
      .set('X-Content-Type-Options', 'nosniff')
      .set('Referrer-Policy', 'no-referrer')
      .set('X-Frame-Options', 'DENY');
    next();
  };
  operation(
    router,
    {
      method: 'get',
      path: `${PORTAL_PATH}/config.json`,
      operationId: 'portalConfig',
      summary: 'Where the portal signs in',
      description: 'Public: the issuer and the public client the portal signs in with.',
      tags: ['portal'],
      public: true,
      responses: {
        200: { description: 'The portal’s configuration.', schema: PortalConfigSchema },
      },
    },
    (_req, res) => {
      res
        .set('Cache-Control', 'no-cache')
        .json({ issuer: opts.issuer, client_id: opts.clientId, scope: 'openid organization:*' });
    },
  );
  // Hashed file names: cached for a year; a miss is a 404, never the app's page.
  if (dir !== undefined) {
    router.use(
      `${PORTAL_PATH}/assets`,
      secure,
      express.static(join(dir, 'assets'), {
        fallthrough: false,
        immutable: true,
        maxAge: '365d',
        index: false,
        redirect: false,
      }),
      staticMisses,
    );
  }
  const index = dir === undefined ? undefined : readFileSync(join(dir, 'index.html'), 'utf8');
  const page: RequestHandler = (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.originalUrl.split('?')[0] === PORTAL_PATH) {
      res.redirect(301, `${PORTAL_PATH}/`);
      return;
    }
    secure(req, res, () => undefined);
    res.set('Cache-Control', 'no-cache').type('html');
    if (index === undefined) {
      res
        .status(503)
        .send(
          '<!doctype html><html lang="en"><title>aiplane portal</title><h1>The portal is not built</h1><p>Run <code>make setup</code> (it builds portal/).</p></html>',
        );
      return;
    }
    res.send(index);
  };
  operation(
    router,
    {
      method: 'get',
      path: `${PORTAL_PATH}/`,
      operationId: 'portalPage',
      summary: 'The portal (a web app)',
      description:
        'Public. Every address below /portal/ answers this page too; the app shows the route in the browser and signs in there.',
      tags: ['portal'],
      public: true,
      responses: {
        200: { description: 'The page.', contentType: 'text/html' },
        503: { description: 'The portal was not built.', contentType: 'text/html' },
      },
    },
    (req, res) => {
      void page(req, res, () => undefined);
    },
  );
  // The app's own routes (deep links, the sign-in callback): the same page.
  router.use(PORTAL_PATH, page);
}

/**
 * A miss of the static files is a 404, whatever `send` made of the path: a name with an encoded
 * slash reaches the file system and comes back as its ENOENT, which is no HTTP error
 * (docs/adr/0042). Its other refusals (403 for `..`) are kept.
 */
export const staticMisses: ErrorRequestHandler = (err: unknown, req, _res, next) => {
  const status = (err as { status?: unknown } | null)?.status;
  if (status === 404) next(new ApiError('route_not_found', `no file ${req.path}`));
  else next(err);
};
