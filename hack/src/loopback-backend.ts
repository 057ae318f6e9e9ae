import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers `body` as JSON with `status`. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * What a test backend is told to do instead of its real work: fail the next requests with a
 * status, or answer a given body (a broken backend).
 */
export class Injections {
  private failures = { count: 0, status: 503 };
  private readonly answers: unknown[] = [];

  failNext(count: number, status: number): void {
    this.failures = { count, status };
  }

  answerNext(body: unknown): void {
    this.answers.push(body);
  }

  /** Answers an injected failure when one is due (true), as such backends do. */
  failed(res: ServerResponse): boolean {
    if (this.failures.count <= 0) return false;
    this.failures.count -= 1;
    const { status } = this.failures;
    json(res, status, { error: { message: `injected failure ${status}` } });
    return true;
  }

  /** Answers the next given body when there is one (true). */
  answered(res: ServerResponse): boolean {
    if (this.answers.length === 0) return false;
    json(res, 200, this.answers.shift());
    return true;
  }
}

/**
 * TEST SUPPORT: an HTTP server on a free loopback port for a test backend: `handle` serves
 * each request (a failure it throws answers 500 with its message); `baseUrl` is
 * `http://127.0.0.1:<port>/v1`, what a catalogue entry's base_url is.
 */
export async function startLoopbackBackend(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  beforeClose: () => void = () => undefined,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { message: (err as Error).message } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        beforeClose();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
