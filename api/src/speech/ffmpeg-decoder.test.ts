import assert from 'node:assert/strict';
import { AudioInvalid } from './audio-errors.js';
import { sniffContainer } from './ffmpeg-decoder.js';

describe('sniffContainer', function () {
  it('waits for four bytes', function () {
    assert.equal(sniffContainer('opus', Buffer.from('Ogg')), undefined);
  });

  it('finds Ogg and WebM for opus, ID3 and frame syncs for mp3', function () {
    assert.equal(sniffContainer('opus', Buffer.from('OggS\0'))?.demuxer, 'ogg');
    assert.equal(
      sniffContainer('opus', Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))?.demuxer,
      'matroska',
    );
    assert.equal(sniffContainer('mp3', Buffer.from('ID3\x04'))?.demuxer, 'mp3');
    assert.equal(sniffContainer('mp3', Buffer.from([0xff, 0xfb, 0x90, 0x64]))?.demuxer, 'mp3');
  });

  it('refuses anything else before starting ffmpeg', function () {
    assert.throws(() => sniffContainer('opus', Buffer.from('RIFF')), AudioInvalid);
    assert.throws(() => sniffContainer('opus', Buffer.from('ID3\x04')), /Ogg or a WebM container/);
    assert.throws(() => sniffContainer('mp3', Buffer.from('OggS')), /not MP3/);
    assert.throws(() => sniffContainer('mp3', Buffer.from([0xff, 0x00, 0, 0])), AudioInvalid);
  });
});
