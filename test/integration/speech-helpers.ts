import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WebSocket } from 'ws';
import { cacheDir } from '@aiplane/hack';

const run = promisify(execFile);

/** Sentences the local engine hears well in espeak-ng's Klatt voice (docs/adr/0036). */
export const SENTENCES = {
  report: 'can you send me the report by friday',
  garden: 'the children are playing in the garden',
  hello: 'hello world this is a test',
  market: 'we are going to the market this afternoon',
} as const;

/** espeak-ng's voice and rate for the test speech: the Klatt voice is the one PocketSphinx hears. */
const VOICE = ['-v', 'en-us+klatt', '-s', '150'];

/** Synthesised and converted audio is kept here, by what made it. */
const CACHE = join(cacheDir(), 'speech-test');

async function cached(key: string, make: (out: string) => Promise<void>): Promise<string> {
  const name = createHash('sha256').update(key).digest('hex').slice(0, 24);
  const path = join(CACHE, name);
  if (existsSync(path)) return path;
  mkdirSync(CACHE, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await make(tmp);
  renameSync(tmp, path);
  return path;
}

/**
 * espeak-ng's WAV (22.05 kHz mono) of the sentences, each after a pause of `gapMs` (SSML
 * breaks): made once, then read from the cache.
 */
export async function speech(sentences: string[], gapMs = 1200): Promise<string> {
  const ssml = `<speak>${sentences.join(`<break time="${gapMs}ms"/>`)}</speak>`;
  return cached(`espeak ${VOICE.join(' ')} ${ssml}`, async (out) => {
    await run('espeak-ng', [...VOICE, '-m', '-w', out, ssml]);
  });
}

/** What the client sends: one of the socket's encodings at a rate and channel count. */
export type AudioTarget =
  | { encoding: 'pcm_int16' | 'pcm_float32' | 'wav'; rate: number; channels?: number }
  | { encoding: 'mp3' }
  | { encoding: 'opus'; container: 'ogg' | 'webm' };

const FFMPEG_OUTPUT: Record<string, (t: AudioTarget) => string[]> = {
  pcm_int16: (t) => ['-f', 's16le', ...rateArgs(t)],
  pcm_float32: (t) => ['-f', 'f32le', ...rateArgs(t)],
  wav: (t) => ['-f', 'wav', '-c:a', 'pcm_s16le', ...rateArgs(t)],
  mp3: () => ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  // Pages and clusters of 100 ms, as a streaming recorder writes them.
  opus: (t) =>
    'container' in t && t.container === 'webm'
      ? ['-c:a', 'libopus', '-b:a', '48k', '-cluster_time_limit', '100', '-f', 'webm']
      : ['-c:a', 'libopus', '-b:a', '48k', '-page_duration', '100000', '-f', 'ogg'],
};

function rateArgs(t: AudioTarget): string[] {
  return 'rate' in t ? ['-ar', String(t.rate), '-ac', String(t.channels ?? 1)] : [];
}

/** The WAV converted by ffmpeg into `target`'s bytes (cached). */
export async function encode(wav: string, target: AudioTarget): Promise<Buffer> {
  const args = FFMPEG_OUTPUT[target.encoding]?.(target) ?? [];
  const path = await cached(`${wav} ${JSON.stringify(target)}`, async (out) => {
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', wav, ...args, out]);
  });
  return readFileSync(path);
}

/** A WAV file's duration in milliseconds (its data chunk's length over its byte rate). */
export function wavDurationMs(wav: string): number {
  const b = readFileSync(wav);
  const byteRate = b.readUInt32LE(28);
  const data = b.indexOf('data', 12, 'latin1');
  return (b.readUInt32LE(data + 4) / byteRate) * 1000;
}

export interface Frame {
  type: string;
  [k: string]: unknown;
}

export interface TranscriptFrame extends Frame {
  text: string;
  is_final: boolean;
  start_ms: number;
  end_ms: number;
  words?: { word: string; start_ms: number; end_ms: number }[];
}

export interface SessionResult {
  frames: Frame[];
  ready?: Frame;
  transcripts: TranscriptFrame[];
  /** The final transcripts' text, joined. */
  text: string;
  error?: { code: string; message: string; [k: string]: unknown };
  closeCode?: number;
  /** The upgrade was refused with this HTTP status. */
  refusedWith?: number;
}

export interface StreamOptions {
  /** The first message; a string is sent as it is; null sends none. */
  handshake?: Record<string, unknown> | string | null;
  audio?: Buffer;
  /** The audio's duration, to cut it into frames of `frameMs` (default 100 ms). */
  durationMs?: number;
  frameMs?: number;
  /** How many times faster than real time the frames go (default 1: real time). */
  speed?: number;
  /** Sends `{"type":"end"}` after the audio (default true). */
  end?: boolean;
  /** Called with the socket once session_ready came (or at open, without a handshake). */
  onReady?: (ws: WebSocket) => void;
  /** Called once the last audio frame was handed to the socket. */
  onSent?: () => void;
}

/**
 * A real `ws` client session: the handshake, then (after session_ready) the audio in frames of
 * `frameMs` at `speed` times real time, then `{"type":"end"}`; resolves when the server closed.
 */
export function streamSession(url: string, opts: StreamOptions = {}): Promise<SessionResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const out: SessionResult = { frames: [], transcripts: [], text: '' };
    const timers: NodeJS.Timeout[] = [];
    const streamAudio = () => {
      opts.onReady?.(ws);
      const audio = opts.audio;
      if (!audio) {
        if (opts.end !== false) ws.send(JSON.stringify({ type: 'end' }));
        return;
      }
      const frameMs = opts.frameMs ?? 100;
      const duration = opts.durationMs ?? 1000;
      const frames = Math.max(1, Math.ceil(duration / frameMs));
      const size = Math.ceil(audio.length / frames);
      const speed = opts.speed ?? 1;
      const started = Date.now();
      let i = 0;
      const next = () => {
        if (ws.readyState !== ws.OPEN) return;
        if (i >= frames) {
          opts.onSent?.();
          if (opts.end !== false) ws.send(JSON.stringify({ type: 'end' }));
          return;
        }
        ws.send(audio.subarray(i * size, (i + 1) * size));
        i += 1;
        const due = started + (i * frameMs) / speed;
        timers.push(setTimeout(next, Math.max(0, due - Date.now())));
      };
      next();
    };
    ws.on('unexpected-response', (_req, res) => {
      out.refusedWith = res.statusCode;
      res.resume();
      res.on('end', () => resolve(out));
    });
    ws.on('open', () => {
      const h = opts.handshake === undefined ? { type: 'start' } : opts.handshake;
      if (h === null) streamAudio();
      else ws.send(typeof h === 'string' ? h : JSON.stringify(h));
    });
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as Frame;
      out.frames.push(frame);
      if (frame.type === 'session_ready') {
        out.ready = frame;
        streamAudio();
      } else if (frame.type === 'transcript') {
        out.transcripts.push(frame as TranscriptFrame);
      } else if (frame.type === 'error') {
        out.error = frame.error as SessionResult['error'];
      }
    });
    ws.on('close', (code) => {
      for (const t of timers) clearTimeout(t);
      out.closeCode = code;
      out.text = out.transcripts
        .filter((t) => t.is_final)
        .map((t) => t.text)
        .join(' ');
      resolve(out);
    });
    ws.on('error', (err) => {
      if (out.refusedWith === undefined) reject(err);
    });
  });
}

/** Word error rate: word edits (substitutions, insertions, deletions) over the reference's words. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const words = (s: string) => s.toLowerCase().replace(/'/g, '').split(/\s+/).filter(Boolean);
  const r = words(reference);
  const h = words(hypothesis);
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= h.length; j += 1) {
      row[j] = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (r[i - 1] === h[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return (prev[h.length] as number) / r.length;
}

/** Child processes of this process (the in-process API's ffmpeg and engine helpers) by name. */
export function childProcesses(): { pid: number; name: string }[] {
  const out: { pid: number; name: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses; it ends at the last ')'.
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if (Number(ppid) === process.pid && state !== 'Z') out.push({ pid: Number(entry), name });
  }
  return out;
}

/** The speech processes among them: ffmpeg decoders and PocketSphinx helpers. */
export function speechProcesses(): { pid: number; name: string }[] {
  return childProcesses().filter((p) => p.name === 'ffmpeg' || p.name.startsWith('aiplane-stt'));
}
