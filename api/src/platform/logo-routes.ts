import express, { Router } from 'express';
import { callerOrganization, requirePermission } from '@aiplane/lib/auth';
import { type BrandingLogo, MAX_LOGO_BYTES } from './logo.js';

/**
 * What a served SVG may do when opened as a document: nothing (no scripts, no plugins, no
 * loads but its own inline styles and embedded rasters). `sandbox` is the spec's requirement.
 */
export const SVG_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** Whether an If-None-Match header names this entity tag (weak comparison, RFC 9110 13.1.2). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * `/v1/branding/logo` (spec: Endpoints; docs/adr/0020). Mounted before the JSON body parser:
 * the upload is the logo's raw bytes, whatever Content-Type is claimed. Reading needs
 * can_access_api (the router's guard); uploading and resetting need can_edit_config.
 */
export function logoRouter(opts: { logo: BrandingLogo }): Router {
  const router = Router();
  const canEditConfig = requirePermission('can_edit_config');
  // Any content type, read up to the limit (a larger Content-Length is refused unread, a
  // longer stream as soon as it passes the limit): 413 request_too_large. No decompression.
  const rawBody = express.raw({ type: () => true, limit: MAX_LOGO_BYTES, inflate: false });

  router.get('/', async (req, res) => {
    const logo = await opts.logo.get(callerOrganization(req, res));
    res
      .set('ETag', logo.etag)
      .set('Cache-Control', 'private, no-cache')
      .set('X-Content-Type-Options', 'nosniff')
      .set('Last-Modified', logo.updatedAt.toUTCString());
    if (logo.contentType === 'image/svg+xml') res.set('Content-Security-Policy', SVG_CSP);
    if (matchesIfNoneMatch(req.get('if-none-match'), logo.etag)) {
      res.status(304).end();
      return;
    }
    res.type(logo.contentType).send(logo.content);
  });

  router.post('/', canEditConfig, rawBody, async (req, res) => {
    const organizationId = callerOrganization(req, res);
    const body: unknown = req.body;
    const info = await opts.logo.upload(organizationId, Buffer.isBuffer(body) ? body : undefined);
    res.set('ETag', info.etag).json(info);
  });

  router.post('/reset', canEditConfig, async (req, res) => {
    await opts.logo.reset(callerOrganization(req, res));
    res.status(204).end();
  });

  return router;
}
