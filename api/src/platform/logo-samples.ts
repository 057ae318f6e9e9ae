// Test data: real, small PNG and WebP images for the logo tests (unit and integration).
import { crc32, deflateSync } from 'node:zlib';

/** One PNG chunk: length, type, data and the CRC of type and data. */
export function pngChunk(type: string, data: Uint8Array = new Uint8Array()): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A valid RGBA PNG of `width`×`height` pixels (8 bits, not interlaced), a two-colour pattern
 * compressed with zlib; the IHDR fields can be overridden to make invalid ones.
 */
export function makePng(
  width = 16,
  height = 12,
  ihdr: { depth?: number; colorType?: number } = {},
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = ihdr.depth ?? 8;
  header[9] = ihdr.colorType ?? 6;
  const rows: Buffer[] = [];
  // Rows of a real image only for sizes a test decodes; a size-limit test needs just a header.
  const h = Math.min(height, 64);
  const w = Math.min(width, 64);
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + 4 * w);
    for (let x = 0; x < w; x++) {
      const on = (x + y) % 4 < 2;
      row.set(on ? [0x24, 0x57, 0xd6, 0xff] : [0xff, 0x55, 0x00, 0xcc], 1 + 4 * x);
    }
    rows.push(row);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', header),
    pngChunk('tEXt', Buffer.from('Software\0aiplane tests', 'latin1')),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND'),
  ]);
}

/**
 * 16×12 WebP images encoded by Chromium (canvas.toDataURL('image/webp')), checked to decode
 * there: a lone lossy VP8 frame, a lone lossless VP8L frame, and the extended format (VP8X)
 * with an alpha chunk.
 */
export const WEBP = {
  lossy: Buffer.from(
    'UklGRoYAAABXRUJQVlA4IHoAAAAQBACdASoQAAwAAoBCJbACdEyAfoBvwHWAegB+gHWAfwDzmQbAAu/AAAD+0M6KQ1UgKYb/KtBilvxVT3IS2aBZ14eE17V7NnRKl/7mz8PmhB49qDvxUaVxDvnW/S1+xc64bvGkhMz0FdhVvV7XYvAVW6Xwr8ApwcAAAA==',
    'base64',
  ),
  lossless: Buffer.from(
    'UklGRigAAABXRUJQVlA4TBwAAAAvD8ACEA8wVfMfwxw4CLONajZ/p/ufQkT/A9YD',
    'base64',
  ),
  extended: Buffer.from(
    'UklGRpoAAABXRUJQVlA4WAoAAAAQAAAADwAACwAAQUxQSBYAAAABDzDMERGCMNuoZvN3uv8pRPQ/YD0AVlA4IF4AAADwAgCdASoQAAwAAoBCJbACdEyAfsBlgHoAdJf5QAUuAAD+Ex/3vfr03Ra/395/xXog9jek/jofZOlqyAj/8dvPjl+9eTeb/u1Txzt+tXubxQ9vHet6xJ3WDr9gAAAA',
    'base64',
  ),
};

/** A 1×1 GIF and the start of a JPEG: formats a logo may not be. */
export const GIF = Buffer.from(
  'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==',
  'base64',
);
export const JPEG_START = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);

/** A plain logo: what an editor exports, with a gradient, a style sheet and text. */
export const PLAIN_SVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 120 40" width="120" height="40">
  <!-- exported by an editor -->
  <defs>
    <linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#2457d6"/><stop offset="1" stop-color="#0f9d8a"/></linearGradient>
    <style><![CDATA[ .word { font-family: Inter, sans-serif; font-size: 18px; fill: #111827; } ]]></style>
  </defs>
  <rect id="mark" width="40" height="40" rx="8" fill="url(#g)"/>
  <use xlink:href="#mark" x="0" y="0" opacity="0.5"/>
  <text class="word" x="48" y="26">Acme &amp; Co</text>
</svg>
`;
