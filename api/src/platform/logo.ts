import { type Static, Type } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import { ApiError } from '@aiplane/lib/errors';
import { parsePng, parseWebp, sniffLogo } from './logo-format.js';
import type { LogoStore, StoredLogo } from './logo-store.js';
import { sanitizeSvg } from './svg-sanitizer.js';

/** The largest logo upload, in bytes (spec: Limits, "logo upload … up to 512 KB"). */
export const MAX_LOGO_BYTES = 512 * 1024;

/** A logo ready to store: the bytes to serve and what was learnt from them. */
export interface PreparedLogo {
  content: Buffer;
  contentType: 'image/png' | 'image/webp' | 'image/svg+xml';
  /** Pixels of a raster logo; null for SVG. */
  width: number | null;
  height: number | null;
  /** What sanitising took out of an SVG (empty for a raster). */
  removed: string[];
}

/**
 * Recognises and checks a logo by its content (docs/adr/0020): PNG and WebP are validated and
 * kept byte for byte; an SVG is sanitised and its sanitised serialisation is what is kept.
 * Anything else is 415 `unsupported_media_type`; over 512 KB is 413 `request_too_large`.
 */
export async function prepareLogo(body: Uint8Array): Promise<PreparedLogo> {
  if (body.length > MAX_LOGO_BYTES) {
    throw new ApiError('request_too_large', `a logo is at most ${MAX_LOGO_BYTES} bytes`);
  }
  const sniffed = sniffLogo(body);
  if (sniffed.kind === 'svg') {
    const { svg, removed } = await sanitizeSvg(body);
    return { content: svg, contentType: 'image/svg+xml', width: null, height: null, removed };
  }
  const info = sniffed.kind === 'png' ? parsePng(body) : parseWebp(body);
  return { content: Buffer.from(body), ...info, removed: [] };
}

/** What an upload answers (the schema is the type's source and the OpenAPI component). */
export const LogoInfoSchema = Type.Object(
  {
    content_type: Type.Union([
      Type.Literal('image/svg+xml'),
      Type.Literal('image/png'),
      Type.Literal('image/webp'),
    ]),
    bytes: Type.Integer({ minimum: 1, maximum: MAX_LOGO_BYTES }),
    width: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    height: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    etag: Type.String(),
    updated_at: Type.String({ format: 'date-time' }),
    /** What the SVG sanitiser removed (empty for a raster logo). */
    removed: Type.Array(Type.String()),
  },
  { additionalProperties: false, title: 'LogoInfo' },
);
export type LogoInfo = Static<typeof LogoInfoSchema>;

/** The branding logo of organizations: none until one is uploaded. */
export class BrandingLogo {
  constructor(private readonly store: LogoStore) {}

  /** The stored logo; 404 `branding_logo_not_found` when the organization has none. */
  async get(organizationId: string): Promise<StoredLogo> {
    const logo = await this.store.get(organizationId);
    if (!logo) {
      throw new ApiError('branding_logo_not_found', 'the organization has no branding logo');
    }
    return logo;
  }

  /** Checks and stores a logo, replacing the organization's. */
  async upload(organizationId: string, body: Uint8Array | undefined): Promise<LogoInfo> {
    const logo = await prepareLogo(body ?? new Uint8Array());
    const etag = `"${createHash('sha256').update(logo.content).digest('hex')}"`;
    const updatedAt = await this.store.put(organizationId, {
      content: logo.content,
      contentType: logo.contentType,
      etag,
    });
    return {
      content_type: logo.contentType,
      bytes: logo.content.length,
      width: logo.width,
      height: logo.height,
      etag,
      updated_at: updatedAt.toISOString(),
      removed: logo.removed,
    };
  }

  /** Removes the organization's logo (idempotent). */
  async reset(organizationId: string): Promise<void> {
    await this.store.remove(organizationId);
  }
}
