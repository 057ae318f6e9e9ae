import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { checkRemoteAddress } from '@aiplane/lib';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { isUuid } from '@aiplane/lib/service';
import { organizationDirectory } from './download-paths.js';
import { redactUrl } from './download-source.js';
import {
  ACTIVE_STATUSES,
  type Download,
  type DownloadStatus,
  type LogLine,
  type StartDownload,
} from './download-schemas.js';
import type { DownloadStore, DownloadWithFiles } from './download-store.js';
import { type DownloadWorker, removePartials } from './download-worker.js';

export interface DownloadsOptions {
  store: DownloadStore;
  worker: DownloadWorker;
  /** The model store's root directory. */
  root: string;
  /** TEST ONLY: sources on 127.0.0.0/8 and ::1 pass the address rules. */
  allowLoopback: boolean;
}

/** The answer's view of a download: sources without their query strings, totals summed. */
export function downloadView(d: DownloadWithFiles): Download {
  const known = d.files.every((f) => f.bytes_total !== null);
  return {
    id: d.id,
    model: d.model,
    status: d.status,
    error: d.error,
    bytes_done: d.files.reduce((n, f) => n + f.bytes_done, 0),
    bytes_total: known ? d.files.reduce((n, f) => n + (f.bytes_total ?? 0), 0) : null,
    files: d.files.map((f) => ({
      path: f.path,
      url: redactUrl(f.url),
      sha256: f.sha256,
      status: f.status,
      bytes_done: f.bytes_done,
      bytes_total: f.bytes_total,
    })),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    finished_at: d.finished_at?.toISOString() ?? null,
  };
}

const isActive = (d: { status: string }) =>
  (ACTIVE_STATUSES as readonly string[]).includes(d.status);

/** Model-installer downloads of each organization (docs/adr/0025). */
export class ModelDownloads {
  constructor(private readonly o: DownloadsOptions) {}

  /** Queues a download after checking every source like a remote MCP address. */
  async start(organizationId: string, body: StartDownload): Promise<Download> {
    const seen = new Set<string>();
    const duplicates = body.files.flatMap((f, i) => {
      const again = seen.has(f.path);
      seen.add(f.path);
      return again
        ? [{ field: `files[${i}].path`, message: 'names a file already in the list' }]
        : [];
    });
    if (duplicates.length > 0) throw new ValidationFailed(duplicates);
    // Every source, in order (the first refusal names its file); again at dial time.
    for (const [i, f] of body.files.entries()) {
      const r = await checkRemoteAddress(f.url, { allowLoopback: this.o.allowLoopback });
      if (!r.ok)
        throw new ApiError('model_download_source_invalid', `files[${i}].url: ${r.message}`);
    }
    const id = randomUUID();
    const created = await this.o.store.insert(
      {
        id,
        organization_id: organizationId,
        model: body.model,
        directory: join(organizationDirectory(organizationId), body.model),
      },
      body.files.map((f) => ({
        url: f.url,
        path: f.path,
        sha256: f.sha256?.toLowerCase() ?? null,
      })),
    );
    if (!created) {
      throw new ApiError(
        'model_download_in_progress',
        `model ${body.model} has an active download already; cancel it or wait for it to end`,
      );
    }
    await this.o.store.log(id, `queued: ${body.files.length} file(s) for ${body.model}`);
    this.o.worker.kick();
    return downloadView(created);
  }

  async listActive(organizationId: string): Promise<Download[]> {
    return (await this.o.store.listActive(organizationId)).map(downloadView);
  }

  async get(organizationId: string, id: string): Promise<Download> {
    return downloadView(await this.found(organizationId, id));
  }

  /**
   * Cancels an active download: the transfer stops and its partial files go (files already
   * complete stay). A download worked by another replica stops at its next heartbeat.
   */
  async cancel(organizationId: string, id: string): Promise<Download> {
    const before = await this.o.store.cancel(organizationId, id);
    if (!before) {
      const d = await this.found(organizationId, id);
      throw new ApiError('model_download_not_active', `download ${d.id} is ${d.status} already`);
    }
    await this.o.worker.stopLocal(id);
    const after = await this.found(organizationId, id);
    await removePartials(join(this.o.root, before.directory), after.files);
    return downloadView(after);
  }

  /** Buffered log lines after `afterId`; none once the download is terminal (spec rule 2). */
  async logs(
    organizationId: string,
    id: string,
    afterId = 0,
  ): Promise<{ status: DownloadStatus; lines: (LogLine & { id: number })[] }> {
    const d = await this.found(organizationId, id);
    if (!isActive(d)) return { status: d.status, lines: [] };
    return { status: d.status, lines: await this.o.store.logs(id, afterId) };
  }

  private async found(organizationId: string, id: string): Promise<DownloadWithFiles> {
    const d = isUuid(id) ? await this.o.store.get(organizationId, id) : undefined;
    if (!d) throw notFound(id);
    return d;
  }
}

function notFound(id: string): ApiError {
  return new ApiError('model_download_not_found', `no download of the organization has id ${id}`);
}
