import { extname } from 'node:path';
import { FileTooLarge, UnsupportedFileType } from './engine-errors.js';
import { htmlText } from './extract-html.js';
import { pdfText } from './extract-pdf.js';
import { decodeText, normalizeLines } from './text.js';

/** The formats the extractor reads (docs/adr/0031). */
export type DocumentFormat = 'text' | 'markdown' | 'html' | 'pdf';

const BY_CONTENT_TYPE: Record<string, DocumentFormat> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
};
const BY_EXTENSION: Record<string, DocumentFormat> = {
  '.txt': 'text',
  '.text': 'text',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.pdf': 'pdf',
};
/** Content types that say nothing about the format: the extension decides. */
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

export const SUPPORTED_FORMATS =
  'plain text (.txt), Markdown (.md), HTML (.html, .htm) and PDF (.pdf)';

/**
 * The format of a file from its content type, or from its extension when the type is absent
 * or generic (`application/octet-stream`); a specific type the extractor does not read, or a
 * generic one with an unknown extension, is UnsupportedFileType.
 */
export function detectFormat(name: string, contentType?: string): DocumentFormat {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const byType = BY_CONTENT_TYPE[type];
  if (byType) return byType;
  const ext = extname(name).toLowerCase();
  const byExtension = BY_EXTENSION[ext];
  if (GENERIC.has(type) && byExtension) return byExtension;
  const what = GENERIC.has(type) ? `the extension "${ext}"` : `the content type "${type}"`;
  throw new UnsupportedFileType(
    `${what} is not a supported document format; supported: ${SUPPORTED_FORMATS}`,
  );
}

export interface ExtractInput {
  /** The file's name (its extension counts when the content type is generic). */
  name: string;
  contentType?: string | undefined;
  bytes: Uint8Array;
}

export interface ExtractedText {
  format: DocumentFormat;
  /** The document's text: `\n` line ends, paragraphs separated by a blank line. */
  text: string;
  /** PDF only: where each page's text starts in `text` (page n at pageStarts[n − 1]). */
  pageStarts?: number[];
}

/**
 * The text of a document. Plain text and Markdown are decoded (UTF-8, a UTF-16 byte-order mark,
 * or the content type's charset) and kept as written; HTML keeps the text a reader sees (no
 * scripts, styles or templates); PDF takes each page's text with pdfjs-dist. A file larger
 * than `maxBytes` is FileTooLarge; one that cannot be read is ExtractionFailed.
 */
export async function extractText(
  input: ExtractInput,
  limits: { maxBytes: number },
): Promise<ExtractedText> {
  const format = detectFormat(input.name, input.contentType);
  if (input.bytes.length > limits.maxBytes) {
    throw new FileTooLarge(
      `the file has ${input.bytes.length} bytes; at most ${limits.maxBytes} are accepted`,
    );
  }
  if (format === 'pdf') {
    const { text, pageStarts } = await pdfText(input.bytes);
    return { format, text, pageStarts };
  }
  const source = decodeText(input.bytes, charsetOf(input.contentType));
  if (format === 'html') return { format, text: htmlText(source) };
  return { format, text: normalizeLines(source) };
}

function charsetOf(contentType: string | undefined): string | undefined {
  return /;\s*charset="?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
}
