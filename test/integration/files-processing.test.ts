import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@aiplane/hack';
import {
  type FileProcessor,
  PlainTextProcessor,
  type ProcessableFile,
  type ProcessingResult,
} from '@aiplane/api';
import { keycloak, queryRows, startTestApi, type TestApi } from './api-helpers.js';
import { acting, type Acting, type FileNode, fileWithStatus, uploadText } from './files-helpers.js';

const NAME = 'files-processing';
const BACKOFF_MS = 400;

/**
 * The real plain-text processor, with a script by file name for the queue's sake: `hold-…`
 * waits on its first attempt until released or aborted; `flaky-N-…` fails its first N attempts;
 * `broken-…` fails every attempt.
 */
class ScriptedProcessor implements FileProcessor {
  readonly calls: { name: string; at: number }[] = [];
  private readonly releases = new Map<string, () => void>();
  private readonly plain = new PlainTextProcessor();

  attemptsOf(name: string): number[] {
    return this.calls.filter((c) => c.name === name).map((c) => c.at);
  }

  holding(name: string): boolean {
    return this.releases.has(name);
  }

  release(name: string): void {
    this.releases.get(name)?.();
  }

  async process(file: ProcessableFile, signal: AbortSignal): Promise<ProcessingResult> {
    this.calls.push({ name: file.name, at: Date.now() });
    const attempt = this.attemptsOf(file.name).length;
    if (file.name.startsWith('hold-') && attempt === 1) {
      await new Promise<void>((resolve, reject) => {
        this.releases.set(file.name, resolve);
        signal.addEventListener('abort', () =>
          reject(new Error(`aborted: ${String(signal.reason)}`)),
        );
      });
    }
    const flaky = /^flaky-(\d+)-/.exec(file.name);
    if (flaky && attempt <= Number(flaky[1])) throw new Error(`transient failure ${attempt}`);
    if (file.name.startsWith('broken-'))
      throw new Error(`the extractor crashed (attempt ${attempt})`);
    return this.plain.process(file, signal);
  }
}

interface JobRow {
  status: string;
  attempts: number;
  last_error: string | null;
}

describe('file processing: uploaded → processing → RAG Available or failed, in a durable queue that retries with backoff and survives an API restart', function () {
  this.timeout(120_000);
  let api: TestApi;
  let store: string;
  let a: Acting;
  let processor: ScriptedProcessor;
  const env = () => ({ AIPLANE_FILES_DIR: store, AIPLANE_FILES_PROCESSING_ATTEMPTS: '3' });
  const start = async (opts: { databaseOf?: string } = {}) => {
    api = await startTestApi(NAME, env(), {
      ...opts,
      files: {
        processor,
        queue: { backoffBaseMs: BACKOFF_MS, pollMs: 200, heartbeatMs: 200, leaseMs: 2000 },
      },
    });
    a = acting(api.url, 'member', keycloak().organization.id);
  };
  const jobsOf = (file: FileNode) =>
    queryRows<JobRow>(
      api.databaseUrl,
      'select status, attempts, last_error from knowledge_jobs where node_id = $1 order by created_at',
      [file.id],
    );

  before(async function () {
    store = await mkdtemp(join(tmpdir(), 'aiplane-files-processing-'));
    processor = new ScriptedProcessor();
    await start();
  });

  after(async function () {
    await api?.close();
    await rm(store, { recursive: true, force: true });
  });

  it('takes a text file from uploaded through processing to RAG Available with its chunk count', async function () {
    const text = 'x'.repeat(2500);
    const f = await uploadText(a, 'hold-status.txt', text);
    assert.equal(f.status, 'uploaded');
    await waitFor('the processor to hold the file', () =>
      Promise.resolve(processor.holding(f.name)),
    );
    assert.equal((await fileWithStatus(a, f.id, 'processing')).status_reason, null);
    processor.release(f.name);
    const done = await fileWithStatus(a, f.id, 'RAG Available');
    assert.equal(done.chunk_count, 3);
    assert.deepEqual(await jobsOf(f), [{ status: 'done', attempts: 1, last_error: null }]);
  });

  it('fails a file that is not text at once, with the reason, and no retry', async function () {
    const r = await a.upload({
      folder_id: 'null',
      file: {
        data: new Uint8Array([0xff, 0xfe, 0x00, 0x41]),
        filename: 'binary.dat',
        type: 'application/octet-stream',
      },
    });
    assert.equal(r.status, 201, r.text);
    const f = r.json() as FileNode;
    const failed = await fileWithStatus(a, f.id, 'failed');
    assert.equal(failed.status_reason, 'the file is not UTF-8 text');
    assert.equal(failed.chunk_count, null);
    assert.equal(processor.attemptsOf(f.name).length, 1);
    assert.deepEqual(await jobsOf(f), [
      { status: 'failed', attempts: 1, last_error: 'the file is not UTF-8 text' },
    ]);
  });

  it('retries a failed attempt after a backoff that doubles, and the file becomes RAG Available', async function () {
    const f = await uploadText(a, 'flaky-2-report.txt', 'recovered');
    await fileWithStatus(a, f.id, 'RAG Available');
    const at = processor.attemptsOf(f.name);
    assert.equal(at.length, 3);
    // Each retry waited at least its backoff: 400 ms, then 800 ms (lower bounds only).
    assert.ok(at[1]! - at[0]! >= BACKOFF_MS, `first retry after ${at[1]! - at[0]!} ms`);
    assert.ok(at[2]! - at[1]! >= 2 * BACKOFF_MS, `second retry after ${at[2]! - at[1]!} ms`);
    // A job that ended done keeps no error.
    assert.deepEqual(await jobsOf(f), [{ status: 'done', attempts: 3, last_error: null }]);
  });

  it('ends failed with the last reason once AIPLANE_FILES_PROCESSING_ATTEMPTS are used up', async function () {
    const f = await uploadText(a, 'broken-scan.txt', 'never');
    const failed = await fileWithStatus(a, f.id, 'failed');
    assert.equal(failed.status_reason, 'the extractor crashed (attempt 3)');
    assert.equal(processor.attemptsOf(f.name).length, 3);
    assert.deepEqual(await jobsOf(f), [
      { status: 'failed', attempts: 3, last_error: 'the extractor crashed (attempt 3)' },
    ]);
  });

  it('claims a job again when its lease expired (its replica died), and completes it', async function () {
    const f = await uploadText(a, 'hold-lease.txt', 'lease');
    await waitFor('the processor to hold the file', () =>
      Promise.resolve(processor.holding(f.name)),
    );
    // What a replica that died leaves: the job running under a lease nobody renews.
    await queryRows(
      api.databaseUrl,
      `update knowledge_jobs set lease_owner = 'api-gone', lease_expires_at = now() - interval '1 second'
        where node_id = $1`,
      [f.id],
    );
    const done = await fileWithStatus(a, f.id, 'RAG Available');
    assert.equal(done.chunk_count, 1);
    assert.equal(processor.attemptsOf(f.name).length, 2);
    assert.deepEqual(await jobsOf(f), [{ status: 'done', attempts: 2, last_error: null }]);
  });

  it('survives an API restart: the API stops mid-job, the next start completes the job, the interrupted attempt not counted', async function () {
    const f = await uploadText(a, 'hold-restart.txt', 'restart');
    await waitFor('the processor to hold the file', () =>
      Promise.resolve(processor.holding(f.name)),
    );
    await fileWithStatus(a, f.id, 'processing');
    await api.close();
    assert.deepEqual(await jobsOf(f), [{ status: 'queued', attempts: 0, last_error: null }]);

    await start({ databaseOf: NAME });
    const done = await fileWithStatus(a, f.id, 'RAG Available');
    assert.equal(done.chunk_count, 1);
    assert.equal(processor.attemptsOf(f.name).length, 2);
    assert.deepEqual(await jobsOf(f), [{ status: 'done', attempts: 1, last_error: null }]);
  });
});
