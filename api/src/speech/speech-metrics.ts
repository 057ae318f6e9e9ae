import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The speech socket's metrics (docs/adr/0036): sessions open and ended by outcome, audio
 * decoded, and sessions whose socket is not being read (backpressure). Labels carry engine
 * names, encodings and error codes, never audio or text.
 */
export interface SpeechMetrics {
  open: Gauge;
  sessions: Counter<'model' | 'outcome'>;
  audioSeconds: Counter<'model' | 'encoding'>;
  paused: Gauge;
}

export function speechMetrics(registry: Registry): SpeechMetrics {
  return {
    open: new Gauge({
      name: 'aiplane_stt_sessions_open',
      help: 'Speech sockets open on this replica (past the query checks).',
      registers: [registry],
    }),
    sessions: new Counter({
      name: 'aiplane_stt_sessions_total',
      help: 'Ended speech sessions by engine and outcome (ok, client_left, or the error code).',
      labelNames: ['model', 'outcome'],
      registers: [registry],
    }),
    audioSeconds: new Counter({
      name: 'aiplane_stt_audio_seconds_total',
      help: 'Seconds of audio decoded and handed to the engines, by engine and encoding.',
      labelNames: ['model', 'encoding'],
      registers: [registry],
    }),
    paused: new Gauge({
      name: 'aiplane_stt_sessions_paused',
      help: 'Speech sessions whose socket is not read now because the decoder or the engine is behind.',
      registers: [registry],
    }),
  };
}
