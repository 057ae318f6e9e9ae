import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { constants, lstat, open, rename, truncate, unlink } from 'node:fs/promises';
import { parseAddress } from '@aiplane/lib';
import type { PinnedFetch } from '@aiplane/lib/mcp';
import { type FileTarget, prepareTarget } from './download-paths.js';
import { rangeHeader, redactUrl, resumeDecision } from './download-source.js';

/** Redirects followed per request, each target checked again (syntax here, address at dial). */
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A transfer that went wrong; `retryable` ones are tried again from the bytes on disk. */
export class TransferError extends Error {
  override readonly name = 'TransferError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface TransferOptions {
  fetch: PinnedFetch;
  url: string;
  /** The model store's root: nothing is written outside it. */
  root: string;
  target: FileTarget;
  /** The file's name in messages (its path in the model). */
  name: string;
  sha256: string | null;
  maxBytes: number;
  headersTimeoutMs: number;
  /** Longest wait for the next bytes of a body. */
  idleTimeoutMs: number;
  signal: AbortSignal;
  log: (message: string) => Promise<void>;
  /** Called after every chunk; the caller bounds how often it is persisted. */
  progress: (bytesDone: number, bytesTotal: number | null) => void;
}

async function sizeOf(file: string): Promise<number> {
  const info = await lstat(file).catch(() => undefined);
  return info?.isFile() ? info.size : 0;
}

async function hashFile(file: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
}

/** The cause chain's message of a failed fetch, without the address's query string. */
function networkMessage(err: unknown): string {
  let e: unknown = err;
  const parts: string[] = [];
  for (let i = 0; i < 4 && e instanceof Error; i++) {
    parts.push(e.message);
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(': ').replace(/\?[^\s]*/g, '?…');
}

function isDialRefusal(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 4 && e instanceof Error; i++) {
    if ((e as { code?: string }).code === 'ERR_DIAL_REFUSED') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * GETs `url` (with `range`), following up to MAX_REDIRECTS redirects whose targets pass the
 * address syntax rules; the pinned fetch checks each new host's addresses when it dials.
 */
async function request(
  o: TransferOptions,
  range: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  let url = o.url;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await o.fetch(url, {
        headers: { 'accept-encoding': 'identity', ...(range ? { range } : {}) },
        signal,
      });
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason;
      if (isDialRefusal(err)) {
        throw new TransferError(`${redactUrl(url)}: ${networkMessage(err)}`, false);
      }
      throw new TransferError(`${redactUrl(url)}: ${networkMessage(err)}`, true);
    }
    if (!REDIRECTS.has(response.status)) return response;
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    if (hop >= MAX_REDIRECTS || location === null) {
      throw new TransferError(
        location === null
          ? `${redactUrl(url)}: redirect without a Location`
          : `more than ${MAX_REDIRECTS} redirects`,
        false,
      );
    }
    const next = new URL(location, url).toString();
    const parsed = parseAddress(next);
    if ('rule' in parsed) {
      throw new TransferError(`redirect to ${redactUrl(next)} refused: ${parsed.message}`, false);
    }
    await o.log(`${o.name}: redirected to ${redactUrl(next)}`);
    url = next;
  }
}

/**
 * Fetches one file into its partial file and renames it into place when every byte is there
 * (and its SHA-256 matches, when given). A partial file left by an earlier attempt is resumed
 * with `Range` when the source honours it, else written again from byte 0. Throws
 * TransferError, or the signal's reason when aborted (the partial file stays).
 */
export async function transferFile(o: TransferOptions): Promise<{ bytes: number }> {
  await prepareTarget(o.root, o.target);
  let onDisk = await sizeOf(o.target.partial);
  for (let attempt = 0; ; attempt++) {
    const headers = new AbortController();
    const idle = new AbortController();
    const signal = AbortSignal.any([o.signal, headers.signal, idle.signal]);
    const headersTimer = setTimeout(
      () => headers.abort(new TransferError('the source sent no answer in time', true)),
      o.headersTimeoutMs,
    );
    let response: Response;
    try {
      response = await request(o, rangeHeader(onDisk), signal);
    } catch (err) {
      if (headers.signal.aborted) throw headers.signal.reason;
      throw err;
    } finally {
      clearTimeout(headersTimer);
    }
    const decision = resumeDecision(onDisk, {
      status: response.status,
      contentRange: response.headers.get('content-range'),
      contentLength: response.headers.get('content-length'),
    });
    if (decision.action === 'fail') {
      await response.body?.cancel().catch(() => undefined);
      const retryable = response.status >= 500 || response.status === 429;
      throw new TransferError(`${o.name}: ${decision.message}`, retryable);
    }
    if (decision.action === 'discard') {
      await response.body?.cancel().catch(() => undefined);
      if (attempt > 0) throw new TransferError(`${o.name}: ${decision.reason}`, true);
      await o.log(`${o.name}: ${decision.reason}; starting it again from byte 0`);
      await truncate(o.target.partial, 0).catch(() => undefined);
      onDisk = 0;
      continue;
    }
    let total: number | null = decision.total;
    let offset = 0;
    if (decision.action === 'append') {
      offset = decision.offset;
      await o.log(`${o.name}: resuming at byte ${offset} (the source accepts ranges)`);
    } else if (decision.action === 'restart' && onDisk > 0) {
      await o.log(`${o.name}: the source ignores ranges; starting again from byte 0`);
    }
    if (total !== null && total > o.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new TransferError(
        `${o.name}: ${total} bytes is more than the limit of ${o.maxBytes} bytes per file`,
        false,
      );
    }
    const hash = o.sha256 ? createHash('sha256') : undefined;
    let done = offset;
    if (decision.action === 'complete') {
      await response.body?.cancel().catch(() => undefined);
      done = decision.total;
      total = decision.total;
      if (hash) await hashFile(o.target.partial, hash);
    } else {
      if (hash && offset > 0) await hashFile(o.target.partial, hash);
      const flags =
        constants.O_WRONLY |
        constants.O_CREAT |
        constants.O_NOFOLLOW |
        (offset > 0 ? constants.O_APPEND : constants.O_TRUNC);
      const file = await open(o.target.partial, flags, 0o644);
      let idleTimer: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(idleTimer);
        idleTimer = setTimeout(
          () => idle.abort(new TransferError(`${o.name}: the source stopped sending`, true)),
          o.idleTimeoutMs,
        );
      };
      try {
        arm();
        if (response.body) {
          for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
            arm();
            done += chunk.byteLength;
            if (done > o.maxBytes || (total !== null && done > total)) {
              throw new TransferError(
                `${o.name}: more bytes than ${total ?? `the limit of ${o.maxBytes}`}`,
                false,
              );
            }
            await file.write(chunk);
            hash?.update(chunk);
            o.progress(done, total);
          }
        }
        await file.sync();
      } catch (err) {
        if (o.signal.aborted) throw o.signal.reason;
        if (idle.signal.aborted) throw idle.signal.reason;
        if (err instanceof TransferError) throw err;
        throw new TransferError(`${o.name}: ${networkMessage(err)}`, true);
      } finally {
        clearTimeout(idleTimer);
        await file.close();
      }
      if (total !== null && done !== total) {
        throw new TransferError(
          `${o.name}: the source ended after ${done} of ${total} bytes`,
          true,
        );
      }
      total = done;
    }
    if (hash && o.sha256) {
      const actual = hash.digest('hex');
      if (actual !== o.sha256.toLowerCase()) {
        await unlink(o.target.partial).catch(() => undefined);
        throw new TransferError(
          `${o.name}: sha256 mismatch: expected ${o.sha256.toLowerCase()}, got ${actual}; the partial file was removed`,
          false,
        );
      }
    }
    if (o.signal.aborted) throw o.signal.reason;
    await rename(o.target.partial, o.target.final);
    o.progress(done, total);
    return { bytes: done };
  }
}

/** Removes a file's partial file (cancel, failure); nothing when there is none. */
export async function removePartial(target: FileTarget): Promise<boolean> {
  try {
    await unlink(target.partial);
    return true;
  } catch {
    return false;
  }
}
