import type { Knex } from 'knex';
import type { Logger } from '@aiplane/lib';
import type { ApiConfig } from '../config.js';
import { Files } from './files.js';
import { type BlobStore, DirectoryBlobStore } from './files-blob-store.js';
import { S3BlobStore } from './files-s3-blob-store.js';
import { FileProcessing, PROCESSING_QUEUE } from './files-processing.js';
import { type FileProcessor, PlainTextProcessor } from './files-processor.js';
import { DEFAULT_QUEUE_SETTINGS, JobQueue, type QueueSettings } from './files-queue.js';
import { JobStore } from './files-queue-store.js';
import type { FilesRouterOptions } from './files-routes.js';
import { FilesStore } from './files-store.js';
import { FoldersStore } from './folders-store.js';
import type { SharingDirectory } from '../sharing/directory.js';
import { NODE_SHARES } from '../sharing/roles.js';
import { ShareStore } from '../sharing/share-store.js';
import { Shares } from '../sharing/shares.js';
import { SharingStore } from './sharing-store.js';

export interface KnowledgeFilesOptions {
  /** What processing runs (default {@link PlainTextProcessor} until the engines plug in). */
  processor?: FileProcessor;
  /** TESTS ONLY: the job queue's timings (lease, heartbeat, poll, backoff). */
  queue?: Partial<Omit<QueueSettings, 'concurrency'>>;
}

/**
 * Files and folders put together (docs/adr/0032): the routes' service and the job queue.
 * `directory` is the identity provider's groups and members, shared with agents' sharing.
 */
export function knowledgeFiles(
  config: ApiConfig,
  db: Knex,
  logger: Logger,
  directory: SharingDirectory,
  opts: KnowledgeFilesOptions = {},
): {
  router: FilesRouterOptions;
  queue: JobQueue;
  /** What a reindex reads and queues with (docs/adr/0034). */
  nodes: FilesStore;
  jobs: JobStore;
  blobs: BlobStore;
  queueSettings: Omit<QueueSettings, 'concurrency'>;
} {
  const blobs: BlobStore = config.files.s3
    ? new S3BlobStore(config.files.s3)
    : new DirectoryBlobStore(config.files.dir);
  const nodes = new FilesStore(db);
  const jobs = new JobStore(db);
  const queueSettings = { ...DEFAULT_QUEUE_SETTINGS, ...opts.queue };
  const queue = new JobQueue(
    PROCESSING_QUEUE,
    jobs,
    new FileProcessing(nodes, blobs, opts.processor ?? new PlainTextProcessor()),
    { ...queueSettings, concurrency: config.files.concurrency },
    logger,
  );
  const files = new Files({
    nodes,
    tree: new FoldersStore(db),
    sharing: new SharingStore(db),
    shares: new Shares(new ShareStore(db, NODE_SHARES), directory),
    jobs,
    blobs,
    directory,
    attempts: config.files.attempts,
    queued: () => queue.kick(),
  });
  return {
    router: { files, blobs, maxBytes: config.files.maxBytes },
    queue,
    nodes,
    jobs,
    blobs,
    queueSettings,
  };
}
