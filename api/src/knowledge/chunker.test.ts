import assert from 'node:assert/strict';
import { chunkText, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from './chunker.js';
import { TooManyChunks } from './engine-errors.js';

const DEFAULTS = { size: DEFAULT_CHUNK_SIZE, overlap: DEFAULT_CHUNK_OVERLAP, maxChunks: 5000 };

/** Numbered sentences, so every chunk's place in the text can be seen. */
function prose(sentences: number): string {
  const out: string[] = [];
  for (let i = 0; i < sentences; i += 1) {
    out.push(`Sentence ${i} says something about retrieval and chunking.`);
    if (i % 7 === 6) out.push('\n\n');
    else out.push(' ');
  }
  return out.join('').trim();
}

describe('chunkText: characters with overlap', function () {
  it('answers one chunk for a short text, and none for a blank one', function () {
    assert.deepEqual(chunkText('  Hello there.  ', DEFAULTS), [
      { index: 0, text: 'Hello there.', start: 2, end: 14 },
    ]);
    assert.deepEqual(chunkText(' \n\n\t ', DEFAULTS), []);
  });

  it('keeps every chunk within the size, repeats about `overlap` characters, and loses no text', function () {
    const text = prose(200);
    const chunks = chunkText(text, DEFAULTS);
    assert.ok(chunks.length > 10, `${chunks.length} chunks`);
    for (const [i, c] of chunks.entries()) {
      assert.equal(c.index, i);
      assert.ok(c.text.length <= DEFAULT_CHUNK_SIZE, `chunk ${i} has ${c.text.length}`);
      assert.equal(c.text, text.slice(c.start, c.end));
      const prev = chunks[i - 1];
      if (prev) {
        const repeated = prev.end - c.start;
        assert.ok(repeated > 0 && repeated <= DEFAULT_CHUNK_OVERLAP, `overlap ${repeated}`);
        assert.ok(c.start > prev.start);
      }
    }
    // Every non-blank character is in some chunk.
    const covered = new Uint8Array(text.length);
    for (const c of chunks) covered.fill(1, c.start, c.end);
    for (let i = 0; i < text.length; i += 1) {
      if (!/\s/.test(text[i] as string)) assert.equal(covered[i], 1, `character ${i} lost`);
    }
  });

  it('ends chunks at a paragraph break when the second half has one, and starts them at a word', function () {
    const chunks = chunkText(prose(60), DEFAULTS);
    for (const c of chunks.slice(0, -1)) {
      assert.match(c.text, /chunking\.$/, 'ends after a whole sentence');
      assert.match(c.text, /^[A-Za-z0-9]/);
    }
    const text = prose(60);
    const first = chunks[0] as { end: number };
    assert.equal(text.slice(first.end, first.end + 2), '\n\n');
  });

  it('prefers a sentence end, then a space, and cuts a text without spaces at the size', function () {
    const sentences = 'a'.repeat(500) + '. ' + 'b'.repeat(450);
    assert.equal(chunkText(sentences, DEFAULTS)[0]?.text, `${'a'.repeat(500)}.`);
    const words = 'word '.repeat(300);
    const wordChunk = chunkText(words, DEFAULTS)[0]?.text ?? '';
    assert.match(wordChunk, /^(word )*word$/);
    const solid = 'x'.repeat(2000);
    const pieces = chunkText(solid, { size: 800, overlap: 100, maxChunks: 10 });
    assert.deepEqual(
      pieces.map((c) => [c.start, c.end]),
      [
        [0, 800],
        [700, 1500],
        [1400, 2000],
      ],
    );
  });

  it('never cuts a UTF-16 surrogate pair', function () {
    const text = '🙂'.repeat(1000); // 2000 code units
    for (const c of chunkText(text, { size: 801, overlap: 101, maxChunks: 100 })) {
      assert.equal(c.text, [...c.text].join(''));
      assert.doesNotMatch(c.text, /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
  });

  it('refuses more chunks than maxChunks with TooManyChunks naming the limit', function () {
    assert.throws(
      () => chunkText(prose(200), { ...DEFAULTS, maxChunks: 3 }),
      (e: unknown) => e instanceof TooManyChunks && /more than 3 chunks/.test(e.message),
    );
    assert.equal(chunkText(prose(10), { ...DEFAULTS, maxChunks: 1 }).length, 1);
  });

  it('refuses an overlap of half the size or more, and a size under 2', function () {
    assert.throws(() => chunkText('x', { size: 100, overlap: 50, maxChunks: 1 }), RangeError);
    assert.throws(() => chunkText('x', { size: 1, overlap: 0, maxChunks: 1 }), RangeError);
    assert.equal(chunkText('x y', { size: 100, overlap: 0, maxChunks: 1 }).length, 1);
  });

  it('does not make a chunk of overlap alone at the end of a text with trailing space', function () {
    const text = `${'word '.repeat(160).trim()}\n\n\n   `;
    const chunks = chunkText(text, DEFAULTS);
    assert.equal(chunks.length, 1);
  });
});
