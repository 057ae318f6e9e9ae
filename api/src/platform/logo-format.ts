import { crc32 } from 'node:zlib';
import { ApiError } from '@aiplane/lib/errors';

/** The largest width or height of a raster logo, in pixels (docs/adr/0020). */
export const MAX_LOGO_SIDE = 4096;

export type RasterType = 'image/png' | 'image/webp';

export interface RasterInfo {
  contentType: RasterType;
  width: number;
  height: number;
}

/** What the first bytes say the body is: a raster we validate, an SVG candidate, or a refusal. */
export type Sniffed = { kind: 'png' } | { kind: 'webp' } | { kind: 'svg' };

const refuse = (message: string): never => {
  throw new ApiError('unsupported_media_type', message);
};

const startsWith = (b: Uint8Array, magic: readonly number[], at = 0) =>
  b.length >= at + magic.length && magic.every((v, i) => b[at + i] === v);
const ascii = (b: Uint8Array, at: number, n: number) =>
  String.fromCharCode(...b.subarray(at, Math.min(b.length, at + n)));

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;

/** Formats people send as logos that we do not take, by their signature, to name in a 415. */
const OTHER_FORMATS: readonly [string, (b: Uint8Array) => boolean][] = [
  ['GIF', (b) => ascii(b, 0, 4) === 'GIF8'],
  ['JPEG', (b) => startsWith(b, [0xff, 0xd8, 0xff])],
  ['BMP', (b) => ascii(b, 0, 2) === 'BM'],
  ['ICO', (b) => startsWith(b, [0, 0, 1, 0])],
  ['TIFF', (b) => startsWith(b, [0x49, 0x49, 0x2a, 0]) || startsWith(b, [0x4d, 0x4d, 0, 0x2a])],
  ['AVIF/HEIF', (b) => ascii(b, 4, 4) === 'ftyp'],
  ['PDF', (b) => ascii(b, 0, 5) === '%PDF-'],
  ['ZIP', (b) => startsWith(b, [0x50, 0x4b, 3, 4])],
];

/**
 * Recognises the body by its content, never by a claimed type (docs/adr/0020): PNG and WebP by
 * their signatures, SVG as text whose first markup is `<` (it is then parsed). Anything else
 * is a 415 naming what was seen when it is a known format.
 */
export function sniffLogo(b: Uint8Array): Sniffed {
  if (b.length === 0) refuse('the body is empty: send the logo’s bytes (SVG, PNG or WebP)');
  if (startsWith(b, PNG_SIGNATURE)) return { kind: 'png' };
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return { kind: 'webp' };
  for (const [name, test] of OTHER_FORMATS) {
    if (test(b)) refuse(`${name} is not accepted: a logo is SVG, PNG or WebP`);
  }
  // Text: an optional UTF-8 byte order mark, white space, then markup.
  let i = startsWith(b, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0a || b[i] === 0x0d)) i++;
  if (b[i] === 0x3c) return { kind: 'svg' };
  return refuse('the body is not SVG, PNG or WebP');
}

const u32be = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const u32le = (b: Uint8Array, at: number) =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);

function checkSide(format: string, width: number, height: number): void {
  if (width < 1 || height < 1) refuse(`${format}: the image has no pixels`);
  if (width > MAX_LOGO_SIDE || height > MAX_LOGO_SIDE) {
    refuse(`${format}: ${width}×${height} pixels is larger than ${MAX_LOGO_SIDE}×${MAX_LOGO_SIDE}`);
  }
}

/** Bit depths PNG allows per colour type (PNG specification, IHDR). */
const PNG_DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/**
 * Validates a PNG's structure: the signature, every chunk's length and CRC, IHDR first (its
 * fields valid, its size within bounds), PLTE where the colour type needs it, one run of IDAT
 * chunks, no unknown critical chunk, and IEND as the very last bytes (nothing appended: a
 * truncated file or a polyglot with a trailer is refused). Pixel data is not decoded.
 */
export function parsePng(b: Uint8Array): RasterInfo {
  if (!startsWith(b, PNG_SIGNATURE)) refuse('PNG: no PNG signature');
  let at = PNG_SIGNATURE.length;
  let width = 0;
  let height = 0;
  let colorType = -1;
  let seen = 0;
  let palette = false;
  let idat: 'none' | 'in' | 'after' = 'none';
  for (;;) {
    if (at + 12 > b.length) refuse('PNG: the file is truncated (no IEND chunk)');
    const length = u32be(b, at);
    const type = ascii(b, at + 4, 4);
    if (!/^[A-Za-z]{4}$/.test(type)) refuse(`PNG: chunk ${seen + 1} has an invalid type`);
    if (length > 0x7fffffff || at + 12 + length > b.length) {
      refuse(`PNG: chunk ${type} is truncated`);
    }
    const data = b.subarray(at + 8, at + 8 + length);
    if (crc32(b.subarray(at + 4, at + 8 + length)) !== u32be(b, at + 8 + length)) {
      refuse(`PNG: chunk ${type} fails its CRC check`);
    }
    at += 12 + length;
    seen++;
    if (seen === 1 && type !== 'IHDR') refuse('PNG: the first chunk is not IHDR');
    if (type !== 'IDAT' && idat === 'in') idat = 'after';
    switch (type) {
      case 'IHDR': {
        if (seen !== 1 || length !== 13) refuse('PNG: IHDR is misplaced or has the wrong size');
        width = u32be(data, 0);
        height = u32be(data, 4);
        const depth = data[8]!;
        colorType = data[9]!;
        if (!PNG_DEPTHS[colorType]?.includes(depth)) {
          refuse(`PNG: bit depth ${depth} is invalid for colour type ${colorType}`);
        }
        if (data[10] !== 0 || data[11] !== 0 || data[12]! > 1) {
          refuse('PNG: unknown compression, filter or interlace method');
        }
        checkSide('PNG', width, height);
        break;
      }
      case 'PLTE':
        if (idat !== 'none' || colorType === 0 || colorType === 4 || length % 3 !== 0) {
          refuse('PNG: PLTE is misplaced or invalid');
        }
        palette = true;
        break;
      case 'IDAT':
        if (idat === 'after') refuse('PNG: IDAT chunks are not consecutive');
        if (colorType === 3 && !palette) refuse('PNG: a palette image has no PLTE before IDAT');
        idat = 'in';
        break;
      case 'IEND':
        if (length !== 0) refuse('PNG: IEND has data');
        if (idat === 'none') refuse('PNG: no image data (IDAT)');
        if (at !== b.length) refuse('PNG: bytes follow IEND (appended data is not accepted)');
        return { contentType: 'image/png', width, height };
      default:
        // Bit 5 of the first byte clear (an upper-case letter) marks a critical chunk.
        if (type.charCodeAt(0) < 0x61) refuse(`PNG: unknown critical chunk ${type}`);
    }
  }
}

interface RiffChunk {
  fourcc: string;
  data: Uint8Array;
}

/** The size of a VP8 (lossy) or VP8L (lossless) bitstream's frame, checked. */
function webpFrame(chunk: RiffChunk): { width: number; height: number } {
  const d = chunk.data;
  if (chunk.fourcc === 'VP8 ') {
    if (d.length < 10) refuse('WebP: the VP8 frame is truncated');
    const tag = d[0]! | (d[1]! << 8) | (d[2]! << 16);
    if ((tag & 1) !== 0) refuse('WebP: the VP8 frame is not a key frame');
    if (tag >>> 5 > d.length - 10) refuse('WebP: the VP8 first partition is truncated');
    if (!startsWith(d, [0x9d, 0x01, 0x2a], 3)) refuse('WebP: the VP8 start code is missing');
    return { width: u16le(d, 6) & 0x3fff, height: u16le(d, 8) & 0x3fff };
  }
  if (chunk.fourcc === 'VP8L') {
    if (d.length < 5 || d[0] !== 0x2f) refuse('WebP: the VP8L signature is missing');
    const bits = u32le(d, 1);
    if (bits >>> 29 !== 0) refuse('WebP: unknown VP8L version');
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return refuse(`WebP: ${chunk.fourcc.trim()} is not an image frame`);
}

/**
 * Validates a WebP's structure: a RIFF container whose size is exactly the file's (nothing
 * truncated, nothing appended), chunks that fit, and one of the three layouts: a lone VP8
 * (lossy) or VP8L (lossless) frame, or VP8X with a frame matching its canvas (or, animated,
 * ANIM and ANMF chunks). The frame headers are parsed for the size; pixels are not decoded.
 */
export function parseWebp(b: Uint8Array): RasterInfo {
  if (b.length < 20 || ascii(b, 0, 4) !== 'RIFF' || ascii(b, 8, 4) !== 'WEBP') {
    refuse('WebP: no RIFF/WEBP header');
  }
  if (u32le(b, 4) + 8 !== b.length) {
    refuse('WebP: the RIFF size does not match the file (truncated or with appended data)');
  }
  const chunks: RiffChunk[] = [];
  for (let at = 12; at < b.length;) {
    if (at + 8 > b.length) refuse('WebP: a chunk header is truncated');
    const fourcc = ascii(b, at, 4);
    const size = u32le(b, at + 4);
    if (at + 8 + size > b.length) refuse(`WebP: chunk ${fourcc.trim()} is truncated`);
    chunks.push({ fourcc, data: b.subarray(at + 8, at + 8 + size) });
    at += 8 + size + (size & 1);
  }
  const [first] = chunks;
  if (first === undefined) return refuse('WebP: no chunks');
  let size: { width: number; height: number };
  if (first.fourcc === 'VP8 ' || first.fourcc === 'VP8L') {
    if (chunks.length !== 1) refuse('WebP: a simple-format file has one chunk');
    size = webpFrame(first);
  } else if (first.fourcc === 'VP8X') {
    if (first.data.length !== 10) refuse('WebP: VP8X has the wrong size');
    const flags = first.data[0]!;
    size = { width: u24le(first.data, 4) + 1, height: u24le(first.data, 7) + 1 };
    const fourccs = chunks.map((c) => c.fourcc);
    if ((flags & 0x02) !== 0) {
      if (!fourccs.includes('ANIM') || !fourccs.includes('ANMF')) {
        refuse('WebP: an animation has no ANIM or ANMF chunk');
      }
    } else {
      const frames = chunks.filter((c) => c.fourcc === 'VP8 ' || c.fourcc === 'VP8L');
      if (frames.length !== 1) refuse('WebP: an extended-format still has no single frame');
      const frame = webpFrame(frames[0]!);
      if (frame.width !== size.width || frame.height !== size.height) {
        refuse('WebP: the frame size differs from the VP8X canvas');
      }
    }
  } else {
    return refuse(`WebP: the first chunk is ${first.fourcc.trim()}, not VP8, VP8L or VP8X`);
  }
  checkSide('WebP', size.width, size.height);
  return { contentType: 'image/webp', ...size };
}
