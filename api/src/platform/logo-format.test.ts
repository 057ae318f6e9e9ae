import assert from 'node:assert/strict';
import { ApiError } from '@aiplane/lib/errors';
import { parsePng, parseWebp, sniffLogo } from './logo-format.js';
import {
  GIF,
  JPEG_START,
  makePng,
  PNG_SIGNATURE,
  pngChunk,
  PLAIN_SVG,
  WEBP,
} from './logo-samples.js';
import { MAX_LOGO_BYTES, prepareLogo } from './logo.js';

/** Runs `fn` and answers the 415 message it threw (failing if it threw anything else). */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 'unsupported_media_type');
    return err.message;
  }
  return assert.fail('not refused');
}

/** Overwrites one byte of a copy. */
const withByte = (b: Buffer, at: number, value: number) => {
  const c = Buffer.from(b);
  c[at] = value;
  return c;
};

describe('logo format detection (by content)', function () {
  // The SVG sanitiser loads jsdom on first use: seconds on a busy machine, and not what these
  // tests are about.
  before(async function () {
    this.timeout(120_000);
    await prepareLogo(Buffer.from(PLAIN_SVG));
  });

  const png = makePng();

  it('recognises PNG and WebP by their signatures and SVG as markup', function () {
    assert.deepEqual(sniffLogo(png), { kind: 'png' });
    for (const webp of Object.values(WEBP)) assert.deepEqual(sniffLogo(webp), { kind: 'webp' });
    assert.deepEqual(sniffLogo(Buffer.from(PLAIN_SVG)), { kind: 'svg' });
    assert.deepEqual(sniffLogo(Buffer.from('\ufeff \n<svg/>')), { kind: 'svg' });
  });

  it('refuses other formats, naming a known one', function () {
    assert.match(
      refusal(() => sniffLogo(GIF)),
      /^GIF is not accepted/,
    );
    assert.match(
      refusal(() => sniffLogo(JPEG_START)),
      /^JPEG is not accepted/,
    );
    assert.match(
      refusal(() => sniffLogo(Buffer.from('%PDF-1.7\n'))),
      /^PDF/,
    );
    assert.match(
      refusal(() => sniffLogo(Buffer.from('hello world'))),
      /not SVG, PNG or WebP/,
    );
    assert.match(
      refusal(() => sniffLogo(Buffer.alloc(0))),
      /empty/,
    );
  });

  it('reads a valid PNG’s size', function () {
    assert.deepEqual(parsePng(png), { contentType: 'image/png', width: 16, height: 12 });
  });

  const pngRefusals: [string, Buffer, RegExp][] = [
    ['truncated in the middle', png.subarray(0, png.length - 20), /truncated/],
    ['cut before IEND', png.subarray(0, png.length - 12), /truncated \(no IEND/],
    [
      'with bytes after IEND (a polyglot trailer)',
      Buffer.concat([png, Buffer.from('<svg/>')]),
      /bytes follow IEND/,
    ],
    ['with a damaged CRC', withByte(png, 8 + 8 + 13, png[8 + 8 + 13]! ^ 0xff), /CRC/],
    [
      'with damaged pixel data',
      withByte(png, png.length - 20, png[png.length - 20]! ^ 0x01),
      /CRC/,
    ],
    ['with an impossible bit depth', makePng(16, 12, { depth: 3 }), /bit depth 3/],
    ['wider than 4096 pixels', makePng(5000, 10), /5000×10 pixels is larger/],
    ['with no pixels', makePng(0, 10), /no pixels/],
    ['with a palette colour type but no PLTE', makePng(4, 4, { colorType: 3 }), /no PLTE/],
    [
      'without IDAT',
      Buffer.concat([PNG_SIGNATURE, png.subarray(8, 8 + 25), pngChunk('IEND')]),
      /no image data/,
    ],
    [
      'with an unknown critical chunk',
      Buffer.concat([png.subarray(0, 33), pngChunk('ZZZZ', Buffer.from('x')), png.subarray(33)]),
      /unknown critical chunk ZZZZ/,
    ],
    [
      'whose first chunk is not IHDR',
      Buffer.concat([PNG_SIGNATURE, pngChunk('tEXt', Buffer.from('a\0b')), png.subarray(8)]),
      /first chunk is not IHDR/,
    ],
  ];
  for (const [what, bytes, message] of pngRefusals) {
    it(`refuses a PNG ${what}`, function () {
      assert.match(
        refusal(() => parsePng(bytes)),
        message,
      );
    });
  }

  it('reads the size of lossy, lossless and extended WebP', function () {
    for (const webp of Object.values(WEBP)) {
      assert.deepEqual(parseWebp(webp), { contentType: 'image/webp', width: 16, height: 12 });
    }
  });

  const lossy = WEBP.lossy;
  const riffSized = (b: Buffer) => {
    const c = Buffer.from(b);
    c.writeUInt32LE(c.length - 8, 4);
    return c;
  };
  const webpRefusals: [string, Buffer, RegExp][] = [
    ['truncated', lossy.subarray(0, lossy.length - 10), /RIFF size does not match/],
    [
      'with appended data',
      Buffer.concat([lossy, Buffer.from('<svg/>')]),
      /RIFF size does not match/,
    ],
    ['whose RIFF size hides a truncated chunk', riffSized(lossy.subarray(0, 40)), /truncated/],
    ['without the VP8 start code', withByte(lossy, 20 + 3, 0), /start code/],
    ['whose VP8 frame is not a key frame', withByte(lossy, 20, lossy[20]! | 1), /key frame/],
    ['without the VP8L signature', withByte(WEBP.lossless, 20, 0), /VP8L signature/],
    [
      'whose first chunk is not an image',
      riffSized(Buffer.concat([lossy.subarray(0, 12), Buffer.from('EXIF\x02\0\0\0ab', 'latin1')])),
      /first chunk is EXIF/,
    ],
    [
      'whose VP8X canvas differs from its frame',
      withByte(WEBP.extended, 24, 20),
      /frame size differs/,
    ],
  ];
  for (const [what, bytes, message] of webpRefusals) {
    it(`refuses a WebP ${what}`, function () {
      assert.match(
        refusal(() => parseWebp(bytes)),
        message,
      );
    });
  }

  describe('prepareLogo', function () {
    it('keeps a PNG claimed as anything byte for byte, as image/png', async function () {
      const logo = await prepareLogo(png);
      assert.equal(logo.contentType, 'image/png');
      assert.ok(logo.content.equals(png));
      assert.deepEqual([logo.width, logo.height, logo.removed], [16, 12, []]);
    });

    it('takes an SVG as SVG only through the sanitiser', async function () {
      const logo = await prepareLogo(Buffer.from(PLAIN_SVG));
      assert.equal(logo.contentType, 'image/svg+xml');
      assert.match(logo.content.toString(), /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    });

    it('refuses a PNG signature followed by SVG markup (a polyglot) as a broken PNG', async function () {
      const polyglot = Buffer.concat([PNG_SIGNATURE, Buffer.from(PLAIN_SVG)]);
      await assert.rejects(prepareLogo(polyglot), { code: 'unsupported_media_type' });
    });

    it('answers 413 request_too_large past 512 KB', async function () {
      const big = Buffer.concat([png, Buffer.alloc(MAX_LOGO_BYTES)]);
      await assert.rejects(prepareLogo(big), { code: 'request_too_large' });
    });
  });
});
