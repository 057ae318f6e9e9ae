import assert from 'node:assert/strict';
import { ExtractionFailed, FileTooLarge, UnsupportedFileType } from './engine-errors.js';
import { detectFormat, extractText, type ExtractInput } from './extract.js';
import { htmlText } from './extract-html.js';
import { makePdf } from './test-pdf.js';
import { decodeText } from './text.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const extract = (input: ExtractInput, maxBytes = 1 << 20) => extractText(input, { maxBytes });

describe('detectFormat: content type first, the extension when the type says nothing', function () {
  const cases: [string, string | undefined, string][] = [
    ['notes.txt', 'text/plain; charset=utf-8', 'text'],
    ['README', 'text/markdown', 'markdown'],
    ['a.md', 'text/x-markdown', 'markdown'],
    ['page', 'text/html', 'html'],
    ['page.xhtml', 'application/xhtml+xml', 'html'],
    ['report', 'Application/PDF', 'pdf'],
    ['report.PDF', 'application/octet-stream', 'pdf'],
    ['notes.markdown', undefined, 'markdown'],
    ['index.htm', '', 'html'],
    ['log.text', 'binary/octet-stream', 'text'],
  ];
  for (const [name, type, want] of cases) {
    it(`reads ${name} sent as ${type ?? '(no type)'} as ${want}`, function () {
      assert.equal(detectFormat(name, type), want);
    });
  }

  it('refuses a specific type it does not read, whatever the extension, naming the type', function () {
    assert.throws(
      () => detectFormat('photo.pdf', 'image/png'),
      (e: unknown) =>
        e instanceof UnsupportedFileType &&
        /content type "image\/png"/.test(e.message) &&
        /supported: plain text/.test(e.message),
    );
  });

  it('refuses a generic type with an unknown extension, naming the extension', function () {
    assert.throws(
      () => detectFormat('sheet.xlsx', 'application/octet-stream'),
      (e: unknown) => e instanceof UnsupportedFileType && /extension "\.xlsx"/.test(e.message),
    );
    assert.throws(() => detectFormat('noextension', undefined), UnsupportedFileType);
  });
});

describe('extractText: plain text and Markdown', function () {
  it('keeps Markdown as written, with \\n line ends and at most one blank line', async function () {
    const md = '# Title\r\n\r\n\r\n\r\nSome *text*   \r\n- item\r\n';
    assert.deepEqual(await extract({ name: 'a.md', bytes: utf8(md) }), {
      format: 'markdown',
      text: '# Title\n\nSome *text*\n- item',
    });
  });

  it('decodes UTF-8, UTF-16 with a byte-order mark, a declared charset, and Windows-1252 when not UTF-8', async function () {
    assert.equal(decodeText(utf8('Zürich 東京')), 'Zürich 東京');
    const le = new Uint8Array([0xff, 0xfe, 0x5a, 0x00, 0xfc, 0x00]);
    assert.equal(decodeText(le), 'Zü');
    const be = new Uint8Array([0xfe, 0xff, 0x00, 0x5a, 0x00, 0xfc]);
    assert.equal(decodeText(be), 'Zü');
    const latin = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]); // "café €" in 1252
    assert.equal(decodeText(latin), 'café €');
    const koi8 = new Uint8Array([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]);
    const text = await extract({
      name: 'a.txt',
      contentType: 'text/plain; charset=KOI8-R',
      bytes: koi8,
    });
    assert.equal(text.text, 'Привет');
  });

  it('refuses binary data in a text file, and an unknown charset, as ExtractionFailed', async function () {
    await assert.rejects(
      extract({ name: 'a.txt', bytes: new Uint8Array([0x61, 0x00, 0x62]) }),
      (e: unknown) => e instanceof ExtractionFailed && /binary/.test(e.message),
    );
    await assert.rejects(
      extract({ name: 'a.txt', contentType: 'text/plain; charset=x-nonsense', bytes: utf8('a') }),
      (e: unknown) => e instanceof ExtractionFailed && /x-nonsense/.test(e.message),
    );
  });

  it('refuses a file over the size limit before reading it, naming both sizes', async function () {
    await assert.rejects(
      extract({ name: 'a.txt', bytes: new Uint8Array(2049) }, 2048),
      (e: unknown) => e instanceof FileTooLarge && /2049 bytes; at most 2048/.test(e.message),
    );
  });
});

describe('extractText: HTML', function () {
  it('keeps what a reader sees: no head, scripts, styles or templates; blocks and <br> break lines', async function () {
    const html = `<!doctype html><html><head><title>Ignored</title><style>p { color: red }</style>
      <script>var secret = "x";</script></head><body>
      <h1>Heading &amp; more</h1>
      <p>First   paragraph with <b>bold</b> and <a href="#">a link</a>.<br>Second line.</p>
      <script>document.write("no")</script><noscript>enable js</noscript>
      <template><p>never shown</p></template>
      <ul><li>one</li><li>two</li></ul>
      <table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
      <!-- a comment -->
      <pre>line 1
line 2</pre>
      </body></html>`;
    const { format, text } = await extract({ name: 'page.html', bytes: utf8(html) });
    assert.equal(format, 'html');
    assert.equal(
      text,
      [
        'Heading & more',
        '',
        'First paragraph with bold and a link.',
        'Second line.',
        '',
        'one',
        '',
        'two',
        '',
        'k\tv',
        '',
        'a\t1',
        '',
        'line 1',
        'line 2',
      ].join('\n'),
    );
  });

  it('reads 20 000 nested elements without overflowing the stack', function () {
    const deep = `${'<div>'.repeat(20_000)}deep text${'</div>'.repeat(20_000)}`;
    assert.equal(htmlText(deep), 'deep text');
  });
});

describe('extractText: PDF with pdfjs-dist', function () {
  // pdfjs-dist (and its worker module, run in this thread) is loaded on the first PDF: seconds
  // from the TypeScript runner's cold cache.
  this.timeout(60_000);

  it('answers each page’s lines, pages separated by a blank line, and where each page starts', async function () {
    const pdf = makePdf([
      ['Hello (PDF) world, page one.', 'Second line: café crème \\ done.'],
      [],
      ['Page three text.'],
    ]);
    const got = await extract({ name: 'doc.pdf', contentType: 'application/pdf', bytes: pdf });
    assert.equal(got.format, 'pdf');
    assert.equal(
      got.text,
      'Hello (PDF) world, page one.\nSecond line: café crème \\ done.\n\nPage three text.',
    );
    assert.deepEqual(got.pageStarts, [0, 60, 62]);
    assert.equal(got.text.slice(got.pageStarts?.[2]), 'Page three text.');
  });

  it('does not detach the caller’s bytes', async function () {
    const pdf = makePdf([['x']]);
    await extract({ name: 'doc.pdf', bytes: pdf });
    assert.ok(pdf.length > 0);
    assert.equal(new TextDecoder().decode(pdf.subarray(0, 5)), '%PDF-');
  });

  it('refuses a file without a PDF header, and a broken PDF, as ExtractionFailed', async function () {
    await assert.rejects(
      extract({ name: 'doc.pdf', bytes: utf8('just text') }),
      (e: unknown) => e instanceof ExtractionFailed && /not a PDF/.test(e.message),
    );
    await assert.rejects(
      extract({ name: 'doc.pdf', bytes: utf8('%PDF-1.4\nno objects at all') }),
      (e: unknown) => e instanceof ExtractionFailed && /cannot be read/.test(e.message),
    );
  });
});
