/**
 * What of a source address may be shown: scheme, host, port and path. A query string may carry
 * a token (signed URLs), so it is replaced by `?…` in every answer and log line; a user name
 * or password is refused when the download is created, and a fragment is never sent.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(unparseable address)';
  }
  const query = parsed.search === '' ? '' : '?…';
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${query}`;
}

/** What to do with one answer to a (possibly ranged) request for a file. */
export type ResumeDecision =
  /** Append the body to the partial file, which holds `offset` bytes already. */
  | { action: 'append'; offset: number; total: number | null }
  /** Truncate the partial file and write the body from byte 0. */
  | { action: 'restart'; total: number | null }
  /** The partial file already holds every byte (416 for a range at its end). */
  | { action: 'complete'; total: number }
  /** The answer does not fit the partial file: drop it and ask again without a range. */
  | { action: 'discard'; reason: string }
  | { action: 'fail'; message: string };

export interface SourceAnswer {
  status: number;
  contentRange: string | null;
  contentLength: string | null;
}

/** `Range` for a partial file of `bytesOnDisk` bytes; none for an empty one. */
export function rangeHeader(bytesOnDisk: number): string | undefined {
  return bytesOnDisk > 0 ? `bytes=${bytesOnDisk}-` : undefined;
}

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

function length(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  return Number(value);
}

/**
 * Decides from the answer to a request sent with {@link rangeHeader}(`bytesOnDisk`):
 * - 206 whose Content-Range starts exactly at `bytesOnDisk`: append (resume);
 * - 200: the server ignored the range (or none was sent): restart the file;
 * - 416 whose Content-Range says the file has exactly `bytesOnDisk` bytes: already complete;
 * - any other 416 or 206 (a range we did not ask for): discard the partial file and ask again
 *   without a range;
 * - anything else: fail, naming the status.
 */
export function resumeDecision(bytesOnDisk: number, answer: SourceAnswer): ResumeDecision {
  if (answer.status === 200) return { action: 'restart', total: length(answer.contentLength) };
  if (answer.status === 206 && bytesOnDisk > 0) {
    const m = CONTENT_RANGE.exec(answer.contentRange ?? '');
    if (m && Number(m[1]) === bytesOnDisk) {
      return {
        action: 'append',
        offset: bytesOnDisk,
        total: m[3] === '*' ? null : Number(m[3]),
      };
    }
    return {
      action: 'discard',
      reason: 'the source answered another range than the one asked for',
    };
  }
  if (answer.status === 416 && bytesOnDisk > 0) {
    const m = /^bytes \*\/(\d+)$/.exec(answer.contentRange ?? '');
    if (m && Number(m[1]) === bytesOnDisk) return { action: 'complete', total: bytesOnDisk };
    return {
      action: 'discard',
      reason: 'the source refused the range of the partial file (HTTP 416)',
    };
  }
  return { action: 'fail', message: `the source answered HTTP ${answer.status}` };
}
