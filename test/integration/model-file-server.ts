import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A file the server serves. */
export interface ServedFile {
  data: Buffer;
  /** Whether `Range: bytes=N-` is honoured (206); otherwise every answer is the whole file (200). */
  ranges: boolean;
  /**
   * Sends bytes up to this offset, then holds the answer open until {@link ModelFileServer.release}
   * (or the client leaves): a download is then observably active, without timing guesses.
   */
  holdAt?: number;
}

/** One request the server saw. */
export interface SeenRequest {
  path: string;
  range: string | undefined;
}

/** Generated content of `bytes` bytes and its SHA-256 (hex). */
export function generatedFile(bytes: number): { data: Buffer; sha256: string } {
  const data = randomBytes(bytes);
  return { data, sha256: createHash('sha256').update(data).digest('hex') };
}

/**
 * A small HTTP file server on 127.0.0.1 for the model download suites: generated files, with
 * or without Range support, optionally held part-way, and redirects; it records each request's
 * path and Range header.
 */
export class ModelFileServer {
  readonly requests: SeenRequest[] = [];
  /** Paths of answers whose client went away before the end (a transfer that was stopped). */
  readonly abandoned: string[] = [];
  private readonly files = new Map<string, ServedFile>();
  private readonly redirects = new Map<string, string>();
  private readonly holds = new Set<() => void>();
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      void this.answer(req, res);
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves `file` at `path` (replacing what was there); its address. */
  add(path: string, file: ServedFile): string {
    this.files.set(path, file);
    return `${this.origin}${path}`;
  }

  /** Answers `path` with a 302 to `location`; its address. */
  redirect(path: string, location: string): string {
    this.redirects.set(path, location);
    return `${this.origin}${path}`;
  }

  file(path: string): ServedFile | undefined {
    return this.files.get(path);
  }

  /** Lets every held answer go on. */
  release(): void {
    for (const go of this.holds) go();
    this.holds.clear();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const range = req.headers.range;
    this.requests.push({ path, range });
    const location = this.redirects.get(path);
    if (location !== undefined) {
      res.writeHead(302, { location }).end();
      return;
    }
    const file = this.files.get(path);
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    const size = file.data.length;
    let start = 0;
    const m = file.ranges && range ? /^bytes=(\d+)-$/.exec(range) : null;
    if (m) {
      start = Number(m[1]);
      if (start >= size) {
        res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
        return;
      }
      res.writeHead(206, {
        'content-length': String(size - start),
        'content-range': `bytes ${start}-${size - 1}/${size}`,
        'accept-ranges': 'bytes',
      });
    } else {
      res.writeHead(200, {
        'content-length': String(size),
        ...(file.ranges ? { 'accept-ranges': 'bytes' } : {}),
      });
    }
    const holdAt = file.holdAt;
    if (holdAt !== undefined && holdAt > start && holdAt < size) {
      res.write(file.data.subarray(start, holdAt));
      const closed = new Promise<void>((resolve) => res.on('close', resolve));
      let go: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (go = resolve));
      this.holds.add(go);
      await Promise.race([released, closed]);
      this.holds.delete(go);
      if (res.destroyed) {
        this.abandoned.push(path);
        return;
      }
      start = holdAt;
    }
    res.end(file.data.subarray(start));
  }
}
