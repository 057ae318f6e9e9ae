import express, { Router } from 'express';
import { operation } from '@aiplane/lib/service';
import { type BrandingLogo, LogoInfoSchema, MAX_LOGO_BYTES } from './logo.js';

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
  const tags = ['branding'];
  // Any content type, read up to the limit (a larger Content-Length is refused unread, a
  // longer stream as soon as it passes the limit): 413 request_too_large. No decompression.
  const rawBody = express.raw({ type: () => true, limit: MAX_LOGO_BYTES, inflate: false });

  operation(
    router,
    {
      method: 'get',
      path: '/',
      operationId: 'getLogo',
      summary: 'The branding logo of the caller’s organization',
      description:
        'The stored bytes with the Content-Type of the detected format, `X-Content-Type-Options: nosniff`, an ETag (conditional GET answers 304) and, for SVG, `Content-Security-Policy: sandbox`.',
      tags,
      organization: true,
      headers: {
        'If-None-Match': { description: 'An ETag of the logo: 304 when it still matches.' },
      },
      responses: {
        200: {
          description: 'The logo (image/svg+xml, image/png or image/webp).',
          contentType: 'image/*',
        },
        304: { description: 'The logo has not changed.' },
      },
      errors: ['branding_logo_not_found'],
    },
    async (req, res, { organizationId }) => {
      const logo = await opts.logo.get(organizationId);
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
    },
  );

  operation(
    router,
    {
      method: 'post',
      path: '/',
      operationId: 'uploadLogo',
      summary: 'Upload the branding logo (SVG, PNG or WebP, at most 512 KB)',
      description:
        'The raw bytes of the image as the body; the format is recognised by content, whatever Content-Type is sent. SVG is sanitised; what was removed is listed.',
      tags,
      permission: 'can_edit_config',
      organization: true,
      binaryBody: {
        mediaTypes: ['image/svg+xml', 'image/png', 'image/webp'],
        description: 'The image’s bytes (up to 512 KB).',
        parser: rawBody,
      },
      responses: { 200: { description: 'The stored logo.', schema: LogoInfoSchema } },
    },
    async (req, res, { organizationId }) => {
      const body: unknown = req.body;
      const info = await opts.logo.upload(organizationId, Buffer.isBuffer(body) ? body : undefined);
      res.set('ETag', info.etag).json(info);
    },
  );

  operation(
    router,
    {
      method: 'post',
      path: '/reset',
      operationId: 'resetLogo',
      summary: 'Remove the branding logo',
      tags,
      permission: 'can_edit_config',
      organization: true,
      responses: { 204: { description: 'No logo now.' } },
    },
    async (_req, res, { organizationId }) => {
      await opts.logo.reset(organizationId);
      res.status(204).end();
    },
  );

  return router;
}
