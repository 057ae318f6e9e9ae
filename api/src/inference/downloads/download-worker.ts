import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from '@aiplane/lib';
import type { PinnedFetch } from '@aiplane/lib/mcp';
import { ClaimLoop } from '@aiplane/lib/service';
import { fileTarget } from './download-paths.js';
import type { DownloadStore, DownloadWithFiles, FileRow } from './download-store.js';
import { removePartial, TransferError, transferFile } from './transfer.js';

export interface WorkerSettings {
  /** The model store's root directory. */
  root: string;
  /** Downloads this replica works at once. */
  concurrency: number;
  maxFileBytes: number;
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  /** How long a lease lasts without renewal (a replica that died frees its downloads then). */
  leaseMs: number;
  /** How often a running download's progress is written and its lease renewed. */
  heartbeatMs: number;
  /** How often the replica looks for downloads nobody works. */
  pollMs: number;
  /** Attempts per file for retryable failures (connection lost, 5xx, stalled source). */
  attempts: number;
}

export const DEFAULT_WORKER_SETTINGS = {
  headersTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  leaseMs: 30_000,
  heartbeatMs: 1_000,
  pollMs: 2_000,
  attempts: 3,
} as const;

/** Why a running transfer was stopped from outside. */
type StopReason = 'cancelled' | 'stopping' | 'lease-lost';

/**
 * Works downloads held in PostgreSQL: claims one whose lease is free (docs/adr/0025), fetches
 * its files one after the other, writes progress and renews the lease every heartbeat, and
 * ends it completed or failed. On stop it aborts its transfers, keeps their partial files and
 * gives its leases back, so the next replica (or the next start) resumes them.
 */
export class DownloadWorker {
  /** This replica's name in leases. */
  readonly owner = `api-${randomUUID()}`;
  private readonly loop: ClaimLoop<DownloadWithFiles>;

  constructor(
    private readonly store: DownloadStore,
    private readonly fetch: PinnedFetch,
    private readonly settings: WorkerSettings,
    private readonly logger: Logger,
  ) {
    this.loop = new ClaimLoop({
      concurrency: settings.concurrency,
      pollMs: settings.pollMs,
      claim: () => this.store.claim(this.owner, this.settings.leaseMs),
      work: (d, controller) => this.work(d, controller),
      release: (ids) => this.store.release(this.owner, ids),
      failed: (err, id) =>
        this.logger.error({ err, download: id }, 'model downloads: claiming or working failed'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for work now (a download was just queued). */
  kick(): void {
    this.loop.kick();
  }

  /** Stops a download this replica works (it was cancelled); resolves once it has stopped. */
  async stopLocal(id: string): Promise<void> {
    await this.loop.abort(id, 'cancelled' satisfies StopReason);
  }

  /** Aborts the transfers (`'stopping'`), keeps their partial files, releases the leases. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** A line in the download's buffer (what its logs route shows) and in the API's log. */
  private async note(d: DownloadWithFiles, message: string): Promise<void> {
    this.logger.info({ download: d.id, model: d.model }, `model download: ${message}`);
    await this.store.log(d.id, message);
  }

  private modelDir(d: DownloadWithFiles): string {
    return join(this.settings.root, d.directory);
  }

  private async work(d: DownloadWithFiles, controller: AbortController): Promise<void> {
    const { signal } = controller;
    const log = (message: string) => this.note(d, message);
    let current: { file: FileRow; done: number; total: number | null } | undefined;
    let writing: Promise<void> = Promise.resolve();
    const beat = setInterval(() => {
      writing = writing
        .then(async () => {
          if (signal.aborted) return;
          if (current) {
            await this.store.updateFile(d.id, current.file.position, {
              bytes_done: current.done,
              bytes_total: current.total,
            });
          }
          if (!(await this.store.renew(d.id, this.owner, this.settings.leaseMs))) {
            controller.abort('lease-lost' satisfies StopReason);
          }
        })
        .catch((err: unknown) =>
          this.logger.warn({ err, download: d.id }, 'model downloads: heartbeat failed'),
        );
    }, this.settings.heartbeatMs);
    try {
      const resumed = d.files.some((f) => f.status !== 'pending');
      await log(
        `${resumed ? 'resumed' : 'started'} by ${this.owner}: ${d.files.length} file(s) into ${d.model}`,
      );
      for (const file of d.files) {
        if (file.status === 'done') continue;
        await this.store.updateFile(d.id, file.position, { status: 'running' });
        current = { file, done: file.bytes_done, total: file.bytes_total };
        const marks = new Set<number>();
        const { bytes } = await this.transferWithRetries(d, file, signal, (done, total) => {
          current = { file, done, total };
          if (total === null || total === 0) return;
          const quarter = Math.floor((done / total) * 4);
          if (quarter > 0 && quarter < 4 && !marks.has(quarter)) {
            marks.add(quarter);
            log(`${file.path}: ${quarter * 25}% (${done} of ${total} bytes)`).catch(
              () => undefined,
            );
          }
        });
        current = undefined;
        await this.store.updateFile(d.id, file.position, {
          status: 'done',
          bytes_done: bytes,
          bytes_total: bytes,
        });
        await log(
          `${file.path}: complete, ${bytes} bytes${file.sha256 ? ', sha256 verified' : ''}`,
        );
      }
      clearInterval(beat);
      await writing;
      if (await this.store.finish(d.id, this.owner, 'completed', null)) {
        this.logger.info({ download: d.id, model: d.model }, 'model download completed');
      }
    } catch (err) {
      clearInterval(beat);
      await writing;
      await this.ended(d, signal, err);
    } finally {
      clearInterval(beat);
    }
  }

  private async transferWithRetries(
    d: DownloadWithFiles,
    file: FileRow,
    signal: AbortSignal,
    progress: (done: number, total: number | null) => void,
  ): Promise<{ bytes: number }> {
    const s = this.settings;
    for (let attempt = 1; ; attempt++) {
      try {
        return await transferFile({
          fetch: this.fetch,
          url: file.url,
          root: s.root,
          target: fileTarget(this.modelDir(d), file.path),
          name: file.path,
          sha256: file.sha256,
          maxBytes: s.maxFileBytes,
          headersTimeoutMs: s.headersTimeoutMs,
          idleTimeoutMs: s.idleTimeoutMs,
          signal,
          log: (m) => this.note(d, m),
          progress,
        });
      } catch (err) {
        if (signal.aborted || !(err instanceof TransferError) || !err.retryable) throw err;
        if (attempt >= s.attempts) throw err;
        await this.note(
          d,
          `${err.message}; trying again (attempt ${attempt + 1} of ${s.attempts})`,
        );
        await sleep(1000 * 2 ** (attempt - 1), signal);
      }
    }
  }

  /** A download stopped before completing: failed, cancelled, or left for later. */
  private async ended(d: DownloadWithFiles, signal: AbortSignal, err: unknown): Promise<void> {
    const reason: unknown = signal.aborted ? signal.reason : undefined;
    if (reason === 'stopping') return; // partial files stay: the next worker resumes them
    if (reason === 'cancelled' || reason === 'lease-lost') {
      // Lost because it was cancelled (another replica's cancel): remove what was half-written.
      if (reason === 'cancelled' || (await this.store.status(d.id)) === 'cancelled') {
        await removePartials(this.modelDir(d), await this.store.files(d.id));
      }
      return;
    }
    const message =
      err instanceof TransferError
        ? err.message
        : err instanceof Error && err.name === 'PathEscapeError'
          ? err.message
          : 'internal error while downloading (see the API log)';
    if (!(err instanceof TransferError)) {
      this.logger.error({ err, download: d.id }, 'model download failed');
    }
    await this.note(d, `failed: ${message}`);
    const files = await this.store.files(d.id);
    for (const f of files.filter((f) => f.status === 'running')) {
      await this.store.updateFile(d.id, f.position, { status: 'failed' });
    }
    await removePartials(this.modelDir(d), files);
    await this.store.finish(d.id, this.owner, 'failed', message);
  }
}

/** Removes the partial files of the files not done; the done ones stay. */
export async function removePartials(modelDir: string, files: readonly FileRow[]): Promise<void> {
  for (const f of files) {
    if (f.status !== 'done') await removePartial(fileTarget(modelDir, f.path));
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
