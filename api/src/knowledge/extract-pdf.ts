import { ExtractionFailed } from './engine-errors.js';
import { normalizeLines } from './text.js';

/** The part of a text-content item that is read (pdfjs also gives marked-content items). */
interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/**
 * pdfjs's display layer builds a `DOMMatrix` when its module loads, for rendering, which the API
 * never does. Node.js has none; pdfjs borrows @napi-rs/canvas's when that native package is
 * installed, which the container image does not carry (docs/adr/0013). This stand-in, set only
 * when there is none, lets the module load everywhere alike; text extraction never uses it.
 */
class NoRenderingMatrix {}
function allowPdfjsToLoad(): void {
  const g = globalThis as { DOMMatrix?: unknown };
  g.DOMMatrix ??= NoRenderingMatrix;
}

/**
 * Each page's text with pdfjs-dist's legacy build (the one for Node.js), loaded on first use:
 * the API never renders, so no canvas, fonts or eval are used, and the document is read from
 * memory (nothing fetched). Items are joined as the PDF lays them out, lines at the items'
 * ends of line; pages are separated by a blank line. A PDF that is encrypted or cannot be
 * parsed is ExtractionFailed. pdfjs runs its parser on this thread in slices (the document's
 * promise chain yields between pages); a job calls this, not a request (docs/adr/0031).
 */
export async function pdfText(bytes: Uint8Array): Promise<{ text: string; pageStarts: number[] }> {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  if (!head.includes('%PDF-'))
    throw new ExtractionFailed('the file is not a PDF (no %PDF- header)');
  allowPdfjsToLoad();
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({
    // pdfjs takes ownership of (detaches) the buffer it is given: give it a copy.
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy();
    const name = (err as { name?: string }).name;
    if (name === 'PasswordException') throw new ExtractionFailed('the PDF is password-protected');
    throw new ExtractionFailed(`the PDF cannot be read: ${(err as Error).message}`);
  }
  try {
    let text = '';
    const pageStarts: number[] = [];
    for (let n = 1; n <= doc.numPages; n += 1) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const pageText = normalizeLines(
        (content.items as TextItem[])
          .map((item) => (item.str ?? '') + (item.hasEOL ? '\n' : ''))
          .join(''),
      );
      page.cleanup();
      if (text !== '' && pageText !== '') text += '\n\n';
      pageStarts.push(text.length);
      text += pageText;
    }
    return { text, pageStarts };
  } catch (err) {
    if (err instanceof ExtractionFailed) throw err;
    throw new ExtractionFailed(`the PDF cannot be read: ${(err as Error).message}`);
  } finally {
    await doc.destroy();
  }
}
