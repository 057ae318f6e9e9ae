import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../logger.js';
import { requestLog } from './http-basics.js';

/** A server whose every request goes through requestLog, and the lines it wrote. */
async function logged(level: string, handle: (path: string, end: (s: number) => void) => void) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(l) as Record<string, unknown>);
      }
      done();
    },
  });
  const log = requestLog(createLogger({ level, destination }));
  const server: Server = createServer((req, res) =>
    log(req, res, () =>
      handle(req.url ?? '', (status) => {
        res.statusCode = status;
        res.end('x');
      }),
    ),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    lines,
    url,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Waits (bounded) until `n` lines were written. */
async function lines(all: unknown[], n: number): Promise<void> {
  for (let i = 0; i < 200 && all.length < n; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('requestLog', () => {
  it('writes one line per request with method, path without its query, status and time; no headers', async () => {
    const s = await logged('info', (path, end) => end(path.startsWith('/boom') ? 503 : 201));
    try {
      await fetch(`${s.url}/v1/things?token=secret-value`, {
        method: 'POST',
        headers: { authorization: 'Bearer secret-value' },
      });
      await fetch(`${s.url}/boom`);
      await lines(s.lines, 2);
      assert.equal(s.lines.length, 2);
      const [ok, failed] = s.lines;
      assert.deepEqual(ok?.req, { method: 'POST', path: '/v1/things' });
      assert.deepEqual(ok?.res, { status: 201 });
      assert.equal(ok?.msg, 'request completed');
      assert.equal(typeof ok?.responseTime, 'number');
      assert.deepEqual(failed?.res, { status: 503 });
      assert.equal(failed?.msg, 'request errored');
      assert.ok(!JSON.stringify(s.lines).includes('secret-value'));
    } finally {
      await s.close();
    }
  });

  it('does not log the probes, and writes nothing below its level', async () => {
    const quiet = await logged('warn', (_p, end) => end(200));
    const probes = await logged('info', (_p, end) => end(200));
    try {
      await fetch(`${quiet.url}/v1/x`);
      await fetch(`${probes.url}/healthz`);
      await fetch(`${probes.url}/readyz`);
      await fetch(`${probes.url}/v1/after-probes`);
      await lines(probes.lines, 1);
      assert.deepEqual(quiet.lines, []);
      assert.deepEqual(
        probes.lines.map((l) => (l.req as { path: string }).path),
        ['/v1/after-probes'],
      );
    } finally {
      await quiet.close();
      await probes.close();
    }
  });

  it('says when the client went away before the answer ended', async () => {
    const s = await logged('info', () => undefined); // never answers
    try {
      const aborted = new AbortController();
      const pending = fetch(`${s.url}/v1/slow`, { signal: aborted.signal }).catch(() => 'gone');
      for (let i = 0; i < 100 && s.lines.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
        if (i === 5) aborted.abort();
      }
      assert.equal(await pending, 'gone');
      assert.equal(s.lines[0]?.msg, 'request aborted');
    } finally {
      await s.close();
    }
  });
});
