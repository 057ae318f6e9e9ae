import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { FileRefused, PlainTextProcessor, plainText } from './files-processor.js';

const fileOf = (bytes: Buffer) => ({
  id: 'f',
  organizationId: 'o',
  ownerId: 'u',
  name: 'n.txt',
  mediaType: 'text/plain',
  sizeBytes: bytes.length,
  sha256: '',
  open: () => Promise.resolve(Readable.from([bytes])),
});

describe('the plain-text processor', function () {
  it('counts chunks of 1000 characters (characters, not bytes)', async function () {
    const p = new PlainTextProcessor();
    const signal = new AbortController().signal;
    assert.deepEqual(await p.process(fileOf(Buffer.from('a'.repeat(1000))), signal), { chunks: 1 });
    assert.deepEqual(await p.process(fileOf(Buffer.from('é'.repeat(1001))), signal), { chunks: 2 });
  });
  it('refuses for good what is not UTF-8 text, holds NUL bytes, or has no text', async function () {
    const p = new PlainTextProcessor();
    const signal = new AbortController().signal;
    for (const [bytes, why] of [
      [Buffer.from([0xff, 0xfe, 0x41]), 'not UTF-8 text'],
      [Buffer.from('a\u0000b'), 'NUL'],
      [Buffer.from(' \n\t '), 'no text'],
    ] as const) {
      await assert.rejects(p.process(fileOf(bytes), signal), (err: unknown) => {
        assert.ok(err instanceof FileRefused);
        assert.match(err.message, new RegExp(why));
        return true;
      });
    }
  });
  it('decodes UTF-8 with a BOM-less multi-byte text as is', function () {
    assert.equal(plainText(Buffer.from('Žluťoučký kůň')), 'Žluťoučký kůň');
  });
});
