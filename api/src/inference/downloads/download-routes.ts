import { Type } from '@sinclair/typebox';
import { type Response, Router } from 'express';
import { openEventStream, operation } from '@aiplane/lib/service';
import type { ModelDownloads } from './downloads.js';
import {
  DownloadListSchema,
  DownloadSchema,
  LogsSchema,
  StartDownloadBody,
} from './download-schemas.js';

const LogsQuery = Type.Object({
  follow: Type.Optional(
    Type.Union(
      [Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')],
      {
        description:
          '1 or true: answer `text/event-stream`: the buffered lines, then new ones as `line` events until the download is terminal, then one `end` event',
      },
    ),
  ),
});

/** How often a followed log looks for new lines. */
export const FOLLOW_POLL_MS = 500;

/**
 * `/v1/model-installer` (spec: Endpoints; docs/adr/0025): downloads of model files into the
 * model store. Every route needs can_manage_models in the organization.
 */
export function modelInstallerRouter(opts: { downloads: ModelDownloads }): Router {
  const router = Router();
  const d = opts.downloads;
  const common = {
    tags: ['model-installer'],
    permission: 'can_manage_models',
    organization: true,
  } as const;
  const id = { params: { download_id: Type.String({ format: 'uuid' }) } };
  const one = { 200: { description: 'The download.', schema: DownloadSchema } };
  const notFound = ['model_download_not_found'] as const;

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/downloads',
      operationId: 'listModelDownloads',
      summary: 'The organization’s active downloads',
      description:
        'Queued and running downloads only: completed, failed and cancelled ones are absent (read one by id).',
      responses: { 200: { description: 'The active downloads.', schema: DownloadListSchema } },
    },
    async (_req, res, { organizationId }) => {
      const downloads = await d.listActive(organizationId);
      res.json({ downloads, count: downloads.length });
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'post',
      path: '/downloads',
      operationId: 'startModelDownload',
      summary: 'Start downloading a model’s files into the model store',
      description:
        'Queues the download and answers at once; a worker fetches the files one after the other (HTTP(S), sources checked like remote MCP addresses, redirects checked again), resumes after a restart, and verifies each `sha256` given.',
      body: StartDownloadBody,
      responses: {
        202: {
          description: 'The queued download.',
          schema: DownloadSchema,
          headers: { Location: 'The download’s address.' },
        },
      },
      errors: ['model_download_source_invalid', 'model_download_in_progress'],
    },
    async (_req, res, { organizationId, body }) => {
      const created = await d.start(organizationId, body);
      res.status(202).location(`/v1/model-installer/downloads/${created.id}`).json(created);
    },
  );

  operation(
    router,
    {
      ...common,
      ...id,
      method: 'get',
      path: '/downloads/:download_id',
      operationId: 'getModelDownload',
      summary: 'One download, active or not',
      responses: one,
      errors: notFound,
    },
    async (req, res, { organizationId }) => {
      res.json(await d.get(organizationId, req.params.download_id ?? ''));
    },
  );

  operation(
    router,
    {
      ...common,
      ...id,
      method: 'post',
      path: '/downloads/:download_id/cancel',
      operationId: 'cancelModelDownload',
      summary: 'Cancel an active download',
      description:
        'Stops the transfer and removes its partial files (files already complete stay); the download becomes `cancelled`, a terminal state, and leaves the list.',
      responses: one,
      errors: [...notFound, 'model_download_not_active'],
    },
    async (req, res, { organizationId }) => {
      res.json(await d.cancel(organizationId, req.params.download_id ?? ''));
    },
  );

  operation(
    router,
    {
      ...common,
      ...id,
      method: 'get',
      path: '/downloads/:download_id/logs',
      operationId: 'getModelDownloadLogs',
      summary: 'The buffered log lines of a download',
      description:
        'While the download is active: its buffered lines, oldest first. Once it is terminal: 200 with `{"lines": []}`. With `follow=1`: a `text/event-stream` of `line` events (data: a line) and a final `end` event (data: `{"status"}`).',
      query: LogsQuery,
      responses: {
        200: {
          description: 'The lines (or, with follow=1, the event stream).',
          schema: LogsSchema,
          contentType: 'text/event-stream',
        },
      },
      errors: notFound,
    },
    async (req, res, { organizationId, query }) => {
      const downloadId = req.params.download_id ?? '';
      const first = await d.logs(organizationId, downloadId);
      if (query.follow !== '1' && query.follow !== 'true') {
        res.json({ lines: first.lines.map(({ time, message }) => ({ time, message })) });
        return;
      }
      await follow(res, first, (afterId) => d.logs(organizationId, downloadId, afterId));
    },
  );

  return router;
}

type LogsAnswer = Awaited<ReturnType<ModelDownloads['logs']>>;

/** Streams lines as SSE until the download is terminal or the client leaves. */
async function follow(
  res: Response,
  first: LogsAnswer,
  next: (afterId: number) => Promise<LogsAnswer>,
): Promise<void> {
  const stream = openEventStream(res);
  let last = 0;
  let answer = first;
  for (;;) {
    for (const { id, time, message } of answer.lines) {
      stream.send('line', { time, message }, id);
      last = id;
    }
    if (answer.status !== 'queued' && answer.status !== 'running') break;
    stream.keepAlive();
    await new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
    if (stream.gone) return;
    answer = await next(last);
  }
  stream.send('end', { status: answer.status });
  stream.end();
}
