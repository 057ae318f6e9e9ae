import assert from 'node:assert/strict';
import { readSpeechConfig } from './speech-config.js';

describe('readSpeechConfig', function () {
  it('has the documented defaults', function () {
    const problems: string[] = [];
    assert.deepEqual(readSpeechConfig({}, problems), {
      defaultModel: 'pocketsphinx-en-us',
      pocketsphinxHelper: null,
      pocketsphinxModelDir: '/usr/share/pocketsphinx/model/en-us',
      warmEngines: 1,
      interimIntervalMs: 300,
      pauseMs: 500,
      ffmpeg: 'ffmpeg',
      limits: {
        maxFrameBytes: 262144,
        realtimeFactor: 4,
        burstMs: 2000,
        maxSessionSeconds: 3600,
        idleTimeoutSeconds: 30,
        maxSessionsPerUser: 4,
        maxSessionsPerOrganization: 64,
      },
    });
    assert.deepEqual(problems, []);
  });

  it('reads every variable', function () {
    const c = readSpeechConfig(
      {
        AIPLANE_STT_DEFAULT_MODEL: 'whisper-large',
        AIPLANE_STT_POCKETSPHINX_HELPER: '/app/bin/aiplane-stt-pocketsphinx',
        AIPLANE_STT_POCKETSPHINX_MODEL_DIR: '/models/en-us',
        AIPLANE_STT_WARM_ENGINES: '0',
        AIPLANE_STT_INTERIM_INTERVAL_MS: '1000',
        AIPLANE_STT_PAUSE_MS: '800',
        AIPLANE_STT_FFMPEG: '/usr/bin/ffmpeg',
        AIPLANE_STT_MAX_FRAME_BYTES: '65536',
        AIPLANE_STT_REALTIME_FACTOR: '2',
        AIPLANE_STT_BURST_MS: '0',
        AIPLANE_STT_MAX_SESSION_SECONDS: '60',
        AIPLANE_STT_IDLE_TIMEOUT_SECONDS: '5',
        AIPLANE_STT_MAX_SESSIONS_PER_USER: '1',
        AIPLANE_STT_MAX_SESSIONS_PER_ORGANIZATION: '2',
      },
      [],
    );
    assert.equal(c.defaultModel, 'whisper-large');
    assert.equal(c.pocketsphinxHelper, '/app/bin/aiplane-stt-pocketsphinx');
    assert.equal(c.pocketsphinxModelDir, '/models/en-us');
    assert.equal(c.warmEngines, 0);
    assert.equal(c.pauseMs, 800);
    assert.deepEqual(c.limits, {
      maxFrameBytes: 65536,
      realtimeFactor: 2,
      burstMs: 0,
      maxSessionSeconds: 60,
      idleTimeoutSeconds: 5,
      maxSessionsPerUser: 1,
      maxSessionsPerOrganization: 2,
    });
  });

  it('names each bad value', function () {
    const problems: string[] = [];
    readSpeechConfig(
      {
        AIPLANE_STT_POCKETSPHINX_HELPER: 'bin/helper',
        AIPLANE_STT_POCKETSPHINX_MODEL_DIR: 'model',
        AIPLANE_STT_DEFAULT_MODEL: 'no spaces',
        AIPLANE_STT_REALTIME_FACTOR: '0',
        AIPLANE_STT_MAX_FRAME_BYTES: '100',
      },
      problems,
    );
    assert.deepEqual(problems, [
      'AIPLANE_STT_POCKETSPHINX_HELPER must be an absolute path',
      'AIPLANE_STT_POCKETSPHINX_MODEL_DIR must be an absolute path',
      'AIPLANE_STT_DEFAULT_MODEL must be a model name, got "no spaces"',
      'AIPLANE_STT_MAX_FRAME_BYTES must be an integer from 1024 to 16777216, got "100"',
      'AIPLANE_STT_REALTIME_FACTOR must be an integer from 1 to 100, got "0"',
    ]);
  });
});
