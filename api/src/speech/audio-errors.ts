import type { Logger } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import { BackendFailure } from '../inference/backend-client.js';
import type { SocketError } from './stt-protocol.js';

/** The client's audio cannot be decoded: a bad header, a corrupt stream, an unsupported format. */
export class AudioInvalid extends Error {
  override readonly name = 'AudioInvalid';
}

/** A decoder or engine the platform needs cannot run (not installed, failed to start). */
export class EngineUnavailable extends Error {
  override readonly name = 'EngineUnavailable';
}

/** An engine failed during a session (its process died, its backend refused or broke). */
export class EngineFailed extends Error {
  override readonly name = 'EngineFailed';
}

/**
 * A decoder's or an engine's failure as the socket's error: undecodable audio →
 * `speech_audio_invalid`; an engine that cannot run, or a backend down, overloaded or timed
 * out after its retries → `speech_backend_unavailable`; a backend's refusal or nonsense, a
 * helper that died, anything else → `speech_engine_failed`. The log gets the cause (and
 * ffmpeg's `diagnostics`); the client a message that quotes neither.
 */
export function socketErrorOf(err: unknown, log: Logger, diagnostics?: string): SocketError {
  if (err instanceof ApiError) return { code: err.code, message: err.message };
  if (err instanceof AudioInvalid) {
    log.info({ diagnostics }, 'stt audio refused');
    return { code: 'speech_audio_invalid', message: err.message };
  }
  if (err instanceof EngineUnavailable) {
    log.warn({ err }, 'stt engine unavailable');
    return {
      code: 'speech_backend_unavailable',
      message: 'the speech engine cannot run now; retry later',
    };
  }
  if (err instanceof BackendFailure) {
    log.warn({ err }, 'stt backend failed');
    const s = err.status;
    if (err.timedOut || s === undefined || s === 429 || s >= 500) {
      return {
        code: 'speech_backend_unavailable',
        message: 'the speech backend did not answer, or is overloaded; retry later',
      };
    }
    return {
      code: 'speech_engine_failed',
      message:
        s === 401 || s === 403
          ? 'the speech backend refused the platform’s credentials'
          : `the speech backend refused the request (HTTP ${s === 200 ? 'answer unreadable' : s})`,
    };
  }
  log.error({ err }, err instanceof EngineFailed ? 'stt engine failed' : 'stt session broke');
  return { code: 'speech_engine_failed', message: 'the speech engine failed' };
}
