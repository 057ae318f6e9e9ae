import { isAbsolute } from 'node:path';
import { readInt } from '@aiplane/lib/service';

/** The local engine's name: what a handshake's `model` or AIPLANE_STT_DEFAULT_MODEL writes. */
export const LOCAL_STT_MODEL = 'pocketsphinx-en-us';

/** Debian's `pocketsphinx-en-us`: the acoustic model, language model and dictionary. */
export const DEFAULT_POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

/** The speech socket's limits (docs/adr/0036, docs/configuration.md). */
export interface SpeechLimits {
  /** The largest binary message (audio frame) the socket takes. */
  readonly maxFrameBytes: number;
  /** Audio may arrive at most this many times faster than real time. */
  readonly realtimeFactor: number;
  /** Audio that may arrive ahead of that pace at any moment (a client's buffered start). */
  readonly burstMs: number;
  /** The longest session, from `session_ready`. */
  readonly maxSessionSeconds: number;
  /** The longest silence of the client (no message at all) before the session ends. */
  readonly idleTimeoutSeconds: number;
  /** Sessions one user may have open at once on one API replica. */
  readonly maxSessionsPerUser: number;
  /** Sessions one organization may have open at once on one API replica. */
  readonly maxSessionsPerOrganization: number;
}

/** The speech engines and the socket's limits (docs/adr/0036). */
export interface SpeechConfig {
  /** The engine a session without `model` uses: LOCAL_STT_MODEL or a catalogue `stt` model. */
  readonly defaultModel: string;
  /** The local engine's helper (hack/lib/build-speech-helper.sh); null: no local engine. */
  readonly pocketsphinxHelper: string | null;
  /** The local engine's model directory (`en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict`). */
  readonly pocketsphinxModelDir: string;
  /** Helper processes kept started and loaded, waiting for a session. */
  readonly warmEngines: number;
  /** How often an utterance's interim result is looked at (when a session asks for them). */
  readonly interimIntervalMs: number;
  /** The pause that ends an utterance with a final result. */
  readonly pauseMs: number;
  /** ffmpeg (decodes mp3 and opus): a path, or a name looked up on PATH. */
  readonly ffmpeg: string;
  readonly limits: SpeechLimits;
}

/** AIPLANE_STT_* for api/src/config.ts (the one loader); problems are appended to `problems`. */
export function readSpeechConfig(env: NodeJS.ProcessEnv, problems: string[]): SpeechConfig {
  const helper = env.AIPLANE_STT_POCKETSPHINX_HELPER || null;
  if (helper !== null && !isAbsolute(helper)) {
    problems.push('AIPLANE_STT_POCKETSPHINX_HELPER must be an absolute path');
  }
  const modelDir = env.AIPLANE_STT_POCKETSPHINX_MODEL_DIR || DEFAULT_POCKETSPHINX_MODEL_DIR;
  if (!isAbsolute(modelDir)) {
    problems.push('AIPLANE_STT_POCKETSPHINX_MODEL_DIR must be an absolute path');
  }
  const defaultModel = env.AIPLANE_STT_DEFAULT_MODEL || LOCAL_STT_MODEL;
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(defaultModel)) {
    problems.push(`AIPLANE_STT_DEFAULT_MODEL must be a model name, got "${defaultModel}"`);
  }
  const int = (name: string, fallback: number, min: number, max: number) =>
    readInt(env, name, fallback, { min, max }, problems);
  const limits: SpeechLimits = Object.freeze({
    maxFrameBytes: int('AIPLANE_STT_MAX_FRAME_BYTES', 256 * 1024, 1024, 16 * 2 ** 20),
    realtimeFactor: int('AIPLANE_STT_REALTIME_FACTOR', 4, 1, 100),
    burstMs: int('AIPLANE_STT_BURST_MS', 2000, 0, 600_000),
    maxSessionSeconds: int('AIPLANE_STT_MAX_SESSION_SECONDS', 3600, 1, 86_400),
    idleTimeoutSeconds: int('AIPLANE_STT_IDLE_TIMEOUT_SECONDS', 30, 1, 3600),
    maxSessionsPerUser: int('AIPLANE_STT_MAX_SESSIONS_PER_USER', 4, 1, 10_000),
    maxSessionsPerOrganization: int('AIPLANE_STT_MAX_SESSIONS_PER_ORGANIZATION', 64, 1, 100_000),
  });
  return Object.freeze({
    defaultModel,
    pocketsphinxHelper: helper,
    pocketsphinxModelDir: modelDir,
    warmEngines: int('AIPLANE_STT_WARM_ENGINES', 1, 0, 64),
    interimIntervalMs: int('AIPLANE_STT_INTERIM_INTERVAL_MS', 300, 50, 10_000),
    pauseMs: int('AIPLANE_STT_PAUSE_MS', 500, 100, 5000),
    ffmpeg: env.AIPLANE_STT_FFMPEG || 'ffmpeg',
    limits,
  });
}
