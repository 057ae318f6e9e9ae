import assert from 'node:assert/strict';
import { AudioInvalid } from './audio-errors.js';
import { MAX_WAV_HEADER_BYTES, parseWavHeader, wavFile } from './wav-header.js';

/** A WAV header: fmt with these fields, optional chunks before data, data of `dataBytes`. */
function header(
  fmt: {
    tag?: number;
    channels?: number;
    rate?: number;
    bits?: number;
    block?: number;
    extensible?: number;
  },
  opts: { before?: Buffer[]; dataBytes?: number; fmtFirst?: boolean } = {},
): Buffer {
  const channels = fmt.channels ?? 1;
  const bits = fmt.bits ?? 16;
  const f = Buffer.alloc(fmt.extensible === undefined ? 16 : 40);
  f.writeUInt16LE(fmt.tag ?? 1, 0);
  f.writeUInt16LE(channels, 2);
  f.writeUInt32LE(fmt.rate ?? 16000, 4);
  f.writeUInt32LE((fmt.rate ?? 16000) * channels * (bits / 8), 8);
  f.writeUInt16LE(fmt.block ?? (channels * bits) / 8, 12);
  f.writeUInt16LE(bits, 14);
  if (fmt.extensible !== undefined) {
    f.writeUInt16LE(22, 16);
    f.writeUInt16LE(fmt.extensible, 24);
  }
  const chunk = (id: string, body: Buffer) => {
    const h = Buffer.alloc(8);
    h.write(id, 0, 'latin1');
    h.writeUInt32LE(body.length, 4);
    return Buffer.concat([h, body, Buffer.alloc(body.length % 2)]);
  };
  const data = Buffer.alloc(8);
  data.write('data', 0, 'latin1');
  data.writeUInt32LE(opts.dataBytes ?? 0xffffffff, 4);
  const parts = [chunk('fmt ', f), ...(opts.before ?? []).map((b) => chunk('LIST', b)), data];
  if (opts.fmtFirst === false) parts.reverse();
  const riff = Buffer.from('RIFF\0\0\0\0WAVE', 'latin1');
  return Buffer.concat([riff, ...parts]);
}

describe('parseWavHeader', function () {
  it('reads 16-bit PCM and where its samples start', function () {
    const h = header({ rate: 44100, channels: 2 }, { dataBytes: 1000 });
    assert.deepEqual(parseWavHeader(h), {
      format: { sampleFormat: 's16', sampleRate: 44100, channels: 2 },
      headerBytes: h.length,
      dataBytes: 1000,
    });
  });

  it('takes a streamed data length (0 or 0xFFFFFFFF) as unknown', function () {
    assert.equal(parseWavHeader(header({}, { dataBytes: 0 }))?.dataBytes, null);
    assert.equal(parseWavHeader(header({}, { dataBytes: 0xffffffff }))?.dataBytes, null);
  });

  for (const [fmt, sampleFormat] of [
    [{ bits: 8 }, 'u8'],
    [{ bits: 24 }, 's24'],
    [{ bits: 32 }, 's32'],
    [{ tag: 3, bits: 32 }, 'f32'],
    [{ tag: 0xfffe, extensible: 1, bits: 16 }, 's16'],
    [{ tag: 0xfffe, extensible: 3, bits: 32 }, 'f32'],
  ] as const) {
    it(`reads format ${fmt.tag ?? 1} with ${fmt.bits}-bit samples as ${sampleFormat}`, function () {
      assert.equal(parseWavHeader(header(fmt))?.format.sampleFormat, sampleFormat);
    });
  }

  it('skips other chunks before data, odd-sized ones padded', function () {
    const h = header({}, { before: [Buffer.alloc(5), Buffer.alloc(100)] });
    assert.equal(parseWavHeader(h)?.headerBytes, h.length);
  });

  it('waits for more bytes while the header is incomplete, at any cut', function () {
    const h = header({}, { before: [Buffer.alloc(33)] });
    for (let n = 0; n < h.length; n += 1) {
      assert.equal(parseWavHeader(h.subarray(0, n)), undefined, `cut at ${n}`);
    }
    assert.ok(parseWavHeader(h));
  });

  for (const [name, bytes, message] of [
    ['not RIFF', Buffer.from('OggS\0\0\0\0\0\0\0\0', 'latin1'), /no RIFF\/WAVE/],
    ['RIFF but not WAVE', Buffer.from('RIFF\0\0\0\0AVI LIST', 'latin1'), /no RIFF\/WAVE/],
    ['noise from the first byte', Buffer.from([0x07, 0x07]), /no RIFF\/WAVE/],
    ['µ-law', header({ tag: 7, bits: 8 }), /format 7 with 8-bit samples is not supported/],
    ['64-bit float', header({ tag: 3, bits: 64 }), /not supported/],
    ['12-bit PCM', header({ bits: 12, block: 2 }), /not supported/],
    ['9 channels', header({ channels: 9 }), /9 channels; 1 to 8/],
    ['no channels', header({ channels: 0, block: 0 }), /0 channels/],
    ['4 kHz', header({ rate: 4000 }), /4000 Hz; 8000 to 192000/],
    ['a wrong block size', header({ channels: 2, block: 2 }), /block size 2/],
    ['data before fmt', header({}, { fmtFirst: false }), /before its fmt chunk/],
    [
      'a short fmt chunk',
      Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEfmt \x04\0\0\0\x01\0\x01\0', 'latin1')]),
      /shorter than 16/,
    ],
  ] as const) {
    it(`refuses ${name}`, function () {
      assert.throws(
        () => parseWavHeader(bytes),
        (err: unknown) => {
          assert.ok(err instanceof AudioInvalid);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  it('gives up when no data chunk comes within the first 64 KiB', function () {
    const h = header({}, { before: [Buffer.alloc(MAX_WAV_HEADER_BYTES)] });
    assert.throws(() => parseWavHeader(h), /no WAV data chunk within the first 65536 bytes/);
  });

  it('reads what wavFile writes', function () {
    const wav = wavFile(Buffer.alloc(320), 16000);
    assert.deepEqual(parseWavHeader(wav), {
      format: { sampleFormat: 's16', sampleRate: 16000, channels: 1 },
      headerBytes: 44,
      dataBytes: 320,
    });
  });
});
