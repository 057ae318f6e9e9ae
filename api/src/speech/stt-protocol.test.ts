import assert from 'node:assert/strict';
import { parseControl, parseHandshake, sessionQuery } from './stt-protocol.js';

const q = (s: string) => sessionQuery(new URLSearchParams(s));

describe('the /v1/stt query rules', function () {
  it('defaults lang to en', function () {
    assert.deepEqual(q('encoding=wav'), { lang: 'en', encoding: 'wav' });
  });

  it('takes each of the six languages', function () {
    for (const lang of ['cs', 'de', 'el', 'en', 'fr', 'sk']) {
      assert.deepEqual(q(`encoding=mp3&lang=${lang}`), { lang, encoding: 'mp3' });
    }
  });

  for (const [query, code] of [
    ['encoding=wav&language=de', 'parameter_renamed'],
    ['encoding=wav&language=de&lang=de', 'parameter_renamed'],
    ['encoding=wav&lang=xx', 'unsupported_language'],
    ['encoding=wav&lang=EN', 'unsupported_language'],
    ['encoding=wav&lang=', 'unsupported_language'],
    ['', 'invalid_encoding'],
    ['encoding=flac', 'invalid_encoding'],
    ['encoding=PCM_INT16&sample_rate_hz=16000', 'invalid_encoding'],
    ['encoding=pcm_int16', 'invalid_sample_rate'],
    ['encoding=pcm_float32', 'invalid_sample_rate'],
    ['encoding=pcm_int16&sample_rate_hz=', 'invalid_sample_rate'],
    ['encoding=pcm_int16&sample_rate_hz=16000.5', 'invalid_sample_rate'],
    ['encoding=pcm_int16&sample_rate_hz=016000', 'invalid_sample_rate'],
    ['encoding=pcm_int16&sample_rate_hz=7999', 'invalid_sample_rate'],
    ['encoding=pcm_int16&sample_rate_hz=192001', 'invalid_sample_rate'],
  ] as const) {
    it(`refuses "${query}" with ${code}`, function () {
      const r = q(query);
      assert.ok('code' in r);
      assert.equal(r.code, code);
    });
  }

  it('lists the supported languages with the two language errors', function () {
    for (const query of ['encoding=wav&language=de', 'encoding=wav&lang=xx']) {
      const r = q(query);
      assert.ok('code' in r);
      assert.deepEqual(r.extra, { supported_languages: ['cs', 'de', 'el', 'en', 'fr', 'sk'] });
    }
  });

  it('takes a PCM rate from 8000 to 192000 Hz, and ignores it for the other encodings', function () {
    assert.deepEqual(q('encoding=pcm_int16&sample_rate_hz=8000'), {
      lang: 'en',
      encoding: 'pcm_int16',
      sampleRate: 8000,
    });
    assert.equal(
      (q('encoding=pcm_float32&sample_rate_hz=192000') as { sampleRate: number }).sampleRate,
      192000,
    );
    assert.deepEqual(q('encoding=opus&sample_rate_hz=nonsense'), { lang: 'en', encoding: 'opus' });
  });
});

describe('the /v1/stt messages', function () {
  it('takes a handshake with its optional fields', function () {
    assert.deepEqual(parseHandshake('{"type":"start"}', 'wav'), { type: 'start' });
    assert.deepEqual(
      parseHandshake(
        '{"type":"start","channels":8,"interim_results":true,"model":"whisper-1"}',
        'pcm_int16',
      ),
      { type: 'start', channels: 8, interim_results: true, model: 'whisper-1' },
    );
  });

  for (const [text, encoding, words] of [
    ['', 'wav', /JSON object/],
    ['null', 'wav', /type/],
    ['[]', 'wav', /type/],
    ['{"type":"end"}', 'wav', /type/],
    ['{"type":"start","channels":0}', 'pcm_int16', /channels/],
    ['{"type":"start","channels":1.5}', 'pcm_int16', /channels/],
    ['{"type":"start","channels":1}', 'mp3', /channels: only for pcm_int16 and pcm_float32/],
    ['{"type":"start","model":"a b"}', 'wav', /model/],
    ['{"type":"start","lang":"de"}', 'wav', /unknown field/],
    [`{"type":"start","model":"${'x'.repeat(5000)}"}`, 'wav', /4096 bytes at most/],
  ] as const) {
    it(`refuses the handshake ${text.slice(0, 50) || '(empty)'} naming ${words}`, function () {
      const r = parseHandshake(text, encoding);
      assert.ok('code' in r);
      assert.equal(r.code, 'speech_message_invalid');
      assert.match(r.message, words);
    });
  }

  it('takes {"type":"end"} after the handshake and nothing else', function () {
    assert.equal(parseControl('{"type":"end"}'), 'end');
    for (const text of ['{"type":"end","now":true}', '{"type":"start"}', 'end', '"end"']) {
      const r = parseControl(text);
      assert.ok(typeof r === 'object' && r.code === 'speech_message_invalid', text);
    }
  });
});
