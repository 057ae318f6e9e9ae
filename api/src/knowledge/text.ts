import { TextDecoder } from 'node:util';
import { ExtractionFailed } from './engine-errors.js';

/**
 * Bytes as text: a byte-order mark wins, then the declared charset, then UTF-8; bytes that are
 * not valid UTF-8 are read as Windows-1252 (what an undeclared legacy text file usually is).
 * Text with NUL characters is binary, not a document.
 */
export function decodeText(bytes: Uint8Array, charset?: string): string {
  let text: string;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be').decode(bytes);
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le').decode(bytes);
  else {
    let decoder: TextDecoder | undefined;
    if (charset && charset !== 'utf-8' && charset !== 'utf8') {
      try {
        decoder = new TextDecoder(charset);
      } catch {
        throw new ExtractionFailed(`the charset "${charset}" is not one the extractor knows`);
      }
    }
    try {
      text = (decoder ?? new TextDecoder('utf-8', { fatal: true })).decode(bytes);
    } catch {
      text = windows1252(bytes);
    }
  }
  if (text.includes('\0')) throw new ExtractionFailed('the file holds binary data, not text');
  return text;
}

/** `\r\n` and `\r` as `\n`, no trailing spaces on lines, at most one blank line in a row. */
export function normalizeLines(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Windows-1252's characters for 0x80–0x9F (undefined in it: kept as the C1 control). */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Windows-1252 by hand: Node's TextDecoder reads the label as ISO-8859-1, which has C1
 * controls where Windows-1252 has €, curly quotes and dashes.
 */
function windows1252(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    out += b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80] : String.fromCharCode(b);
  }
  return out;
}
