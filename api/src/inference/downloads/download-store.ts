import type { Knex } from 'knex';
import {
  ACTIVE_STATUSES,
  type DownloadStatus,
  type FileStatus,
  type LogLine,
} from './download-schemas.js';

const DOWNLOADS = 'model_downloads';
const FILES = 'model_download_files';
const LOGS = 'model_download_logs';
/** Most log lines kept per download; older ones are dropped as new ones come. */
export const MAX_LOG_LINES = 500;

export interface DownloadRow {
  id: string;
  organization_id: string;
  model: string;
  directory: string;
  status: DownloadStatus;
  error: string | null;
  lease_owner: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export interface FileRow {
  download_id: string;
  position: number;
  url: string;
  path: string;
  sha256: string | null;
  status: FileStatus;
  bytes_done: number;
  bytes_total: number | null;
}

export interface DownloadWithFiles extends DownloadRow {
  files: FileRow[];
}

const COLUMNS = [
  'id',
  'organization_id',
  'model',
  'directory',
  'status',
  'error',
  'lease_owner',
  'created_at',
  'updated_at',
  'finished_at',
];

/** pg answers bigint as a string; byte counts stay far below 2^53. */
function fileRow(raw: Record<string, unknown>): FileRow {
  return {
    ...(raw as unknown as FileRow),
    bytes_done: Number(raw.bytes_done),
    bytes_total: raw.bytes_total === null ? null : Number(raw.bytes_total),
  };
}

/** Model downloads (PostgreSQL): records, files, leases and buffered log lines. */
export class DownloadStore {
  constructor(private readonly db: Knex) {}

  /** Inserts a queued download; undefined when the model has an active download already. */
  async insert(
    row: Pick<DownloadRow, 'id' | 'organization_id' | 'model' | 'directory'>,
    files: { url: string; path: string; sha256: string | null }[],
  ): Promise<DownloadWithFiles | undefined> {
    try {
      await this.db.transaction(async (trx) => {
        await trx(DOWNLOADS).insert({ ...row, status: 'queued' });
        await trx(FILES).insert(
          files.map((f, position) => ({ download_id: row.id, position, ...f })),
        );
      });
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return undefined;
      throw err;
    }
    return this.byId(row.id);
  }

  async byId(id: string): Promise<DownloadWithFiles | undefined> {
    const row = await this.db(DOWNLOADS).where({ id }).first<DownloadRow | undefined>(COLUMNS);
    return row && { ...row, files: await this.files(id) };
  }

  async get(organizationId: string, id: string): Promise<DownloadWithFiles | undefined> {
    const row = await this.db(DOWNLOADS)
      .where({ id, organization_id: organizationId })
      .first<DownloadRow | undefined>(COLUMNS);
    return row && { ...row, files: await this.files(id) };
  }

  async files(id: string): Promise<FileRow[]> {
    const rows = await this.db(FILES)
      .where({ download_id: id })
      .orderBy('position')
      .select<Record<string, unknown>[]>();
    return rows.map(fileRow);
  }

  /** The organization's queued and running downloads, oldest first. */
  async listActive(organizationId: string): Promise<DownloadWithFiles[]> {
    const rows = await this.db(DOWNLOADS)
      .where({ organization_id: organizationId })
      .whereIn('status', ACTIVE_STATUSES)
      .orderBy('created_at')
      .select<DownloadRow[]>(COLUMNS);
    if (rows.length === 0) return [];
    const files = (
      await this.db(FILES)
        .whereIn(
          'download_id',
          rows.map((r) => r.id),
        )
        .orderBy(['download_id', 'position'])
        .select<Record<string, unknown>[]>()
    ).map(fileRow);
    return rows.map((r) => ({ ...r, files: files.filter((f) => f.download_id === r.id) }));
  }

  /**
   * Takes the lease of the oldest active download nobody holds (or whose holder stopped
   * renewing), for `owner` during `ttlMs`, and marks it running. `FOR UPDATE SKIP LOCKED`:
   * replicas claiming at once take different downloads, never the same one.
   */
  async claim(owner: string, ttlMs: number): Promise<DownloadWithFiles | undefined> {
    const result = await this.db.raw<{ rows: DownloadRow[] }>(
      `update ${DOWNLOADS} set lease_owner = ?, lease_expires_at = now() + ? * interval '1 millisecond',
              status = 'running', updated_at = now()
        where id = (select id from ${DOWNLOADS}
                     where status in ('queued', 'running')
                       and (lease_expires_at is null or lease_expires_at < now())
                     order by created_at
                     for update skip locked
                     limit 1)
        returning ${COLUMNS.join(', ')}`,
      [owner, ttlMs],
    );
    const row = result.rows[0];
    return row && { ...row, files: await this.files(row.id) };
  }

  /**
   * Renews `owner`'s lease of a running download; false when it is no longer theirs to work
   * (cancelled, or the lease was lost to another replica).
   */
  async renew(id: string, owner: string, ttlMs: number): Promise<boolean> {
    const n = await this.db(DOWNLOADS)
      .where({ id, lease_owner: owner, status: 'running' })
      .update({
        lease_expires_at: this.db.raw(`now() + ? * interval '1 millisecond'`, [ttlMs]),
        updated_at: this.db.fn.now(),
      });
    return n > 0;
  }

  async updateFile(
    id: string,
    position: number,
    change: Partial<Pick<FileRow, 'status' | 'bytes_done' | 'bytes_total'>>,
  ): Promise<void> {
    await this.db(FILES).where({ download_id: id, position }).update(change);
  }

  /**
   * Ends `owner`'s running download as completed or failed: the lease goes, and so do the
   * buffered log lines (spec rule 2: the logs of a terminal download are empty). False when
   * it was not theirs any more (cancelled meanwhile).
   */
  async finish(
    id: string,
    owner: string,
    status: 'completed' | 'failed',
    error: string | null,
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const n = await trx(DOWNLOADS).where({ id, lease_owner: owner, status: 'running' }).update({
        status,
        error,
        lease_owner: null,
        lease_expires_at: null,
        finished_at: trx.fn.now(),
        updated_at: trx.fn.now(),
      });
      if (n > 0) await trx(LOGS).where({ download_id: id }).delete();
      return n > 0;
    });
  }

  /** Cancels an active download; the row as it was before (undefined: none such, or terminal). */
  async cancel(organizationId: string, id: string): Promise<DownloadRow | undefined> {
    return this.db.transaction(async (trx) => {
      const before = await trx(DOWNLOADS)
        .where({ id, organization_id: organizationId })
        .whereIn('status', ACTIVE_STATUSES)
        .forUpdate()
        .first<DownloadRow | undefined>(COLUMNS);
      if (!before) return undefined;
      await trx(DOWNLOADS).where({ id }).update({
        status: 'cancelled',
        lease_owner: null,
        lease_expires_at: null,
        finished_at: trx.fn.now(),
        updated_at: trx.fn.now(),
      });
      await trx(LOGS).where({ download_id: id }).delete();
      return before;
    });
  }

  /** Gives up `owner`'s leases (a replica stopping): another replica may take them at once. */
  async release(owner: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db(DOWNLOADS)
      .whereIn('id', ids)
      .where({ lease_owner: owner })
      .update({ lease_owner: null, lease_expires_at: null });
  }

  /** Adds a line to an active download's buffer, keeping the newest MAX_LOG_LINES. */
  async log(id: string, message: string): Promise<void> {
    await this.db.raw(
      `insert into ${LOGS} (download_id, message)
         select id, ? from ${DOWNLOADS} where id = ? and status in ('queued', 'running')`,
      [message, id],
    );
    await this.db(LOGS)
      .where({ download_id: id })
      .andWhere(
        'id',
        '<=',
        this.db(LOGS)
          .where({ download_id: id })
          .orderBy('id', 'desc')
          .offset(MAX_LOG_LINES)
          .limit(1)
          .select('id'),
      )
      .delete();
  }

  /** Buffered lines after `afterId` (0: all), oldest first, with their ids. */
  async logs(id: string, afterId = 0): Promise<(LogLine & { id: number })[]> {
    const rows = await this.db(LOGS)
      .where({ download_id: id })
      .andWhere('id', '>', afterId)
      .orderBy('id')
      .select<{ id: string; time: Date; message: string }[]>(['id', 'time', 'message']);
    return rows.map((r) => ({ id: Number(r.id), time: r.time.toISOString(), message: r.message }));
  }

  async status(id: string): Promise<DownloadStatus | undefined> {
    const row = await this.db(DOWNLOADS)
      .where({ id })
      .first<{ status: DownloadStatus } | undefined>('status');
    return row?.status;
  }
}
