import { type Static, Type } from '@sinclair/typebox';
import { ListOf, Nullable } from '@aiplane/lib/service';
import { FILE_PATH_PATTERN, MODEL_NAME_PATTERN } from './download-paths.js';

/** Most files one download may fetch. */
export const MAX_FILES = 100;

export const DOWNLOAD_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type DownloadStatus = (typeof DOWNLOAD_STATUSES)[number];
/** Active downloads (spec: States and transitions); the others are terminal. */
export const ACTIVE_STATUSES: readonly DownloadStatus[] = ['queued', 'running'];

export const FILE_STATUSES = ['pending', 'running', 'done', 'failed'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

const Sha256 = Type.String({
  pattern: '^[0-9a-fA-F]{64}$',
  description: 'hex SHA-256 of the file',
});

export const StartDownloadBody = Type.Object(
  {
    model: Type.String({
      pattern: MODEL_NAME_PATTERN,
      description: 'the model’s name: its directory in the organization’s part of the model store',
    }),
    files: Type.Array(
      Type.Object(
        {
          url: Type.String({
            minLength: 1,
            maxLength: 2048,
            description:
              'http(s) address of the file; checked like a remote MCP server address (public hosts only, no user name or password); its query string is never shown or logged',
          }),
          path: Type.String({
            pattern: FILE_PATH_PATTERN,
            maxLength: 1700,
            description:
              'where the file goes, relative to the model’s directory (no . or .., no absolute path)',
          }),
          sha256: Type.Optional(Sha256),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_FILES },
    ),
  },
  { additionalProperties: false, title: 'StartModelDownload' },
);
export type StartDownload = Static<typeof StartDownloadBody>;

export const DownloadFileSchema = Type.Object(
  {
    path: Type.String(),
    url: Type.String({ description: 'the source, its query string shown as ?…' }),
    sha256: Nullable(Type.String()),
    status: Type.Union(FILE_STATUSES.map((s) => Type.Literal(s))),
    bytes_done: Type.Integer(),
    bytes_total: Type.Union([Type.Integer(), Type.Null()], {
      description: 'null until the source tells',
    }),
  },
  { title: 'ModelDownloadFile' },
);
export type DownloadFile = Static<typeof DownloadFileSchema>;

export const DownloadSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    model: Type.String(),
    status: Type.Union(DOWNLOAD_STATUSES.map((s) => Type.Literal(s))),
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'why a failed download failed',
    }),
    bytes_done: Type.Integer(),
    bytes_total: Type.Union([Type.Integer(), Type.Null()], {
      description: 'the sum of the files’ sizes, null while a size is unknown',
    }),
    files: Type.Array(DownloadFileSchema),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    finished_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'ModelDownload' },
);
export type Download = Static<typeof DownloadSchema>;

export const DownloadListSchema = ListOf('downloads', DownloadSchema, 'ModelDownloadList');

export const LogLineSchema = Type.Object(
  { time: Type.String({ format: 'date-time' }), message: Type.String() },
  { title: 'ModelDownloadLogLine' },
);
export type LogLine = Static<typeof LogLineSchema>;

export const LogsSchema = Type.Object(
  {
    lines: Type.Array(LogLineSchema, {
      description: 'the buffered lines, oldest first; empty once the download is terminal',
    }),
  },
  { title: 'ModelDownloadLogs' },
);
