// Speech-to-text on this machine (docs/adr/0036): the pipeline a `/v1/stt` session runs — the
// decoder of its encoding into the local engine (PocketSphinx helpers, warm) — without the
// socket, which adds little to it. Speech synthesised by espeak-ng as the tests make it.
//
// - real-time factor per encoding: processing time / audio duration, audio fed as fast as the
//   pipeline takes it (backpressure), one session at a time;
// - latency from the end of speech to its final transcript: audio fed in real time, the final
//   coming at the pause (the engine waits AIPLANE_STT_PAUSE_MS of silence) or at `end` sent
//   right after the speech;
// - concurrent sessions: N sessions fed as fast as they go, together; the real-time factor is
//   the time all took over one session's audio duration (the better of two tries). Sessions
//   that can each run in real time: the largest N whose factor stays at or below 1.0.
//
// `node --import tsx bench/run.ts speech`
import { loadavg } from 'node:os';
import type { Duplex } from 'node:stream';
import {
  createDecoder,
  DEFAULT_POCKETSPHINX_MODEL_DIR,
  ENGINE_SAMPLE_RATE,
  PocketSphinxEngine,
  type SttEncoding,
} from '@aiplane/api';
import { createLogger } from '@aiplane/lib';
import { speechHelperPath } from '@aiplane/hack';
import {
  type AudioTarget,
  encode,
  SENTENCES,
  speech,
  wavDurationMs,
  wordErrorRate,
} from '../test/integration/speech-helpers.js';
import { percentile, writeResult } from './report.js';

const REPEATS = 3;
const LATENCY_RUNS = 5;
const PAUSE_MS = 500;

interface Case {
  name: string;
  target: AudioTarget;
  encoding: SttEncoding;
  sampleRate?: number;
  channels?: number;
}

const CASES: Case[] = [
  {
    name: 'pcm_int16 16 kHz',
    target: { encoding: 'pcm_int16', rate: 16000 },
    encoding: 'pcm_int16',
    sampleRate: 16000,
  },
  {
    name: 'pcm_int16 48 kHz',
    target: { encoding: 'pcm_int16', rate: 48000 },
    encoding: 'pcm_int16',
    sampleRate: 48000,
  },
  {
    name: 'pcm_float32 48 kHz stereo',
    target: { encoding: 'pcm_float32', rate: 48000, channels: 2 },
    encoding: 'pcm_float32',
    sampleRate: 48000,
    channels: 2,
  },
  { name: 'wav 44.1 kHz', target: { encoding: 'wav', rate: 44100 }, encoding: 'wav' },
  { name: 'mp3', target: { encoding: 'mp3' }, encoding: 'mp3' },
  { name: 'opus Ogg', target: { encoding: 'opus', container: 'ogg' }, encoding: 'opus' },
  { name: 'opus WebM', target: { encoding: 'opus', container: 'webm' }, encoding: 'opus' },
];

interface Run {
  /** From the start to the engine's end. */
  wallMs: number;
  /** Final transcripts, with when each came (ms from the start). */
  finals: { text: string; at: number }[];
  /** When the last audio byte (and `end`) was handed over. */
  sentAt: number;
}

/** A started recognition whose final transcripts are kept with when they came. */
async function started(engine: PocketSphinxEngine) {
  const finals: { text: string; at: number }[] = [];
  const clock = { start: performance.now() };
  const recognition = await engine.start({
    lang: 'en',
    interim: false,
    onTranscript: (t) => {
      if (t.isFinal) finals.push({ text: t.text, at: performance.now() - clock.start });
    },
  });
  return { recognition, finals, clock };
}

/**
 * One session's pipeline: the decoder into a started recognition, `bytes` written in frames
 * of `frameMs` (paced at real time, or as fast as the pipeline takes them); times from now.
 */
async function feed(
  r: Awaited<ReturnType<typeof started>>,
  c: Case,
  bytes: Buffer,
  opts: { durationMs: number; realtime: boolean; frameMs?: number },
): Promise<Run> {
  const start = performance.now();
  r.clock.start = start;
  const decoder: Duplex = createDecoder({
    encoding: c.encoding,
    sampleRate: c.sampleRate,
    channels: c.channels ?? 1,
    ffmpeg: 'ffmpeg',
  });
  decoder.pipe(r.recognition.input);
  const failed = new Promise<never>((_, reject) => decoder.once('error', reject));
  const frameMs = opts.frameMs ?? 100;
  const frames = Math.ceil(opts.durationMs / frameMs);
  const size = Math.ceil(bytes.length / frames);
  for (let i = 0; i < frames; i += 1) {
    if (opts.realtime) {
      const due = start + i * frameMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
    if (!decoder.write(bytes.subarray(i * size, (i + 1) * size))) {
      await new Promise((resolve) => decoder.once('drain', resolve));
    }
  }
  decoder.end();
  const sentAt = performance.now() - start;
  await Promise.race([r.recognition.done, failed]);
  return { wallMs: performance.now() - start, finals: r.finals, sentAt };
}

/** A session from the engine's start (a warm helper) to its end. */
async function session(
  engine: PocketSphinxEngine,
  c: Case,
  bytes: Buffer,
  opts: { durationMs: number; realtime: boolean },
): Promise<Run> {
  const before = performance.now();
  const run = await feed(await started(engine), c, bytes, opts);
  return { ...run, wallMs: performance.now() - before };
}

/** Where the speech ends in 16 kHz s16 PCM: the last sample louder than -40 dBFS, in ms. */
function speechEndMs(pcm16k: Buffer): number {
  for (let i = pcm16k.length / 2 - 1; i >= 0; i -= 1) {
    if (Math.abs(pcm16k.readInt16LE(i * 2)) > 328) return (i / ENGINE_SAMPLE_RATE) * 1000;
  }
  return 0;
}

const round = (v: number, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;
const median = (v: number[]) =>
  percentile(
    [...v].sort((a, b) => a - b),
    50,
  );

export async function speechBenchmark(): Promise<void> {
  const engine = new PocketSphinxEngine({
    helper: speechHelperPath(),
    modelDir: DEFAULT_POCKETSPHINX_MODEL_DIR,
    // Each session's helper is started and loaded before its audio is timed (a warm spare
    // loading beside a timed session would take a core from it); start times apart.
    warm: 0,
    interimIntervalMs: 300,
    pauseMs: PAUSE_MS,
    logger: createLogger({ level: 'warn', name: 'bench-speech' }),
  });
  const loadBefore = loadavg()[0];
  try {
    const sentences = [SENTENCES.report, SENTENCES.hello, SENTENCES.market];
    const wav = await speech(sentences);
    const durationMs = wavDurationMs(wav);
    const reference = sentences.join(' ');
    // Warm-up: the model files in the page cache, the helpers started.
    await session(engine, CASES[0] as Case, await encode(wav, CASES[0]?.target as AudioTarget), {
      durationMs,
      realtime: false,
    });

    const perEncoding: Record<string, unknown>[] = [];
    const helperStarts: number[] = [];
    for (const c of CASES) {
      const bytes = await encode(wav, c.target);
      const runs: Run[] = [];
      for (let i = 0; i < REPEATS; i += 1) {
        const t = performance.now();
        const r = await started(engine);
        helperStarts.push(performance.now() - t);
        runs.push(await feed(r, c, bytes, { durationMs, realtime: false }));
      }
      const rtf = median(runs.map((r) => r.wallMs / durationMs));
      const text = runs[0]?.finals.map((f) => f.text).join(' ') ?? '';
      perEncoding.push({
        encoding: c.name,
        realTimeFactor: round(rtf),
        wordErrorRate: round(wordErrorRate(reference, text), 2),
      });
      console.log(`${c.name}: RTF ${round(rtf)}`);
    }

    // Latency: one sentence, then silence, in real time.
    const one = await speech([SENTENCES.report]);
    const onePcm = await encode(one, { encoding: 'pcm_int16', rate: 16000 });
    const endOfSpeech = speechEndMs(onePcm);
    const withSilence = Buffer.concat([onePcm, Buffer.alloc(ENGINE_SAMPLE_RATE * 2 * 2)]);
    const pcm = CASES[0] as Case;
    const atPause: number[] = [];
    const atEnd: number[] = [];
    for (let i = 0; i < LATENCY_RUNS; i += 1) {
      const paused = await session(engine, pcm, withSilence, {
        durationMs: (withSilence.length / 32000) * 1000,
        realtime: true,
      });
      atPause.push((paused.finals[0]?.at ?? Number.NaN) - endOfSpeech);
      const ended = await session(engine, pcm, onePcm, {
        durationMs: (onePcm.length / 32000) * 1000,
        realtime: true,
      });
      atEnd.push((ended.finals.at(-1)?.at ?? Number.NaN) - ended.sentAt);
    }
    const summary = (v: number[]) => {
      const sorted = [...v].sort((a, b) => a - b);
      return { p50: Math.round(percentile(sorted, 50)), max: Math.round(sorted.at(-1) ?? 0) };
    };

    // Concurrency: N sessions at once, as fast as they go.
    const concurrency: Record<string, { sessions: number; realTimeFactor: number }[]> = {};
    const realTimeSessions: Record<string, number> = {};
    for (const c of [CASES[0], CASES[6]] as Case[]) {
      const bytes = await encode(wav, c.target);
      concurrency[c.name] = [];
      realTimeSessions[c.name] = 0;
      for (const n of [1, 2, 3, 4, 6, 8, 10, 12, 16]) {
        // N sessions running (their helpers loaded), then all their audio at once; the better
        // of two tries (the machine is shared: a neighbour's burst is not this capacity).
        let rtf = Number.POSITIVE_INFINITY;
        for (let attempt = 0; attempt < 2; attempt += 1) {
          const running = await Promise.all(Array.from({ length: n }, () => started(engine)));
          const t0 = performance.now();
          await Promise.all(running.map((r) => feed(r, c, bytes, { durationMs, realtime: false })));
          rtf = Math.min(rtf, (performance.now() - t0) / durationMs);
        }
        concurrency[c.name]?.push({ sessions: n, realTimeFactor: round(rtf) });
        console.log(`${c.name} × ${n}: RTF ${round(rtf)}`);
        if (rtf > 1) break;
        realTimeSessions[c.name] = n;
      }
    }

    writeResult('speech', {
      engine: 'pocketsphinx-en-us (PocketSphinx 5prealpha, Debian pocketsphinx-en-us)',
      audio: {
        sentences,
        durationMs: Math.round(durationMs),
        voice: 'espeak-ng en-us+klatt, 150 words per minute',
      },
      realTimeFactorPerEncoding: perEncoding,
      helperStartMs: summary(helperStarts),
      latencyMs: {
        endOfSpeechToFinalAtPause: { ...summary(atPause), pauseMs: PAUSE_MS },
        endMessageToFinal: summary(atEnd),
      },
      concurrentSessions: concurrency,
      realTimeSessionsBeforeFactorPassesOne: realTimeSessions,
      loadAverage: { before: round(loadBefore ?? 0, 2), after: round(loadavg()[0] ?? 0, 2) },
    });
  } finally {
    engine.close();
  }
}
