/**
 * TEST SUPPORT: a small valid PDF 1.4 written by hand, each page a list of text lines in
 * Helvetica (WinAnsiEncoding, so Latin-1 letters work), with a correct cross-reference table.
 * The extractor's tests read it with the real pdfjs-dist, as they would any PDF.
 */
export function makePdf(pages: readonly (readonly string[])[]): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const catalog = add('');
  const pagesObj = add('');
  const font = add(
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  );
  const kids: number[] = [];
  for (const lines of pages) {
    const ops = lines.map((line, i) => `${i === 0 ? '' : 'T* '}(${escapePdf(line)}) Tj`);
    const stream = `BT /F1 12 Tf 72 720 Td 16 TL ${ops.join(' ')} ET`;
    const content = add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] =
    `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Uint8Array.from(out, (c) => c.charCodeAt(0) & 0xff);
}

/** A PDF string literal's body: backslashes and parentheses escaped; Latin-1 only. */
function escapePdf(text: string): string {
  for (const ch of text) {
    if (ch.charCodeAt(0) > 0xff) throw new RangeError(`makePdf writes Latin-1 only, got "${ch}"`);
  }
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}
