import type { BlobStore } from './files-blob-store.js';
import { FileRefused, type FileProcessor, type ProcessableFile } from './files-processor.js';
import { type JobHandler, PermanentJobFailure } from './files-queue.js';
import type { JobRow } from './files-queue-store.js';
import type { FilesStore, NodeRow } from './files-store.js';

/** The queue of file processing jobs. */
export const PROCESSING_QUEUE = 'file-processing';

/** A stored file as processing is given it: its row, and its bytes from the blob store. */
export function processableFile(file: NodeRow, blobKey: string, blobs: BlobStore): ProcessableFile {
  return {
    id: file.id,
    organizationId: file.organization_id,
    ownerId: file.owner_id,
    name: file.name,
    mediaType: file.media_type ?? 'application/octet-stream',
    sizeBytes: Number(file.size_bytes ?? 0),
    sha256: file.sha256 ?? '',
    open: async () => {
      const stream = await blobs.open(blobKey);
      if (!stream) throw new FileRefused('the file’s bytes are missing from the blob store');
      return stream;
    },
  };
}

/** Runs `work`; a refusal no retry mends ({@link FileRefused}) ends the job at once. */
export async function refusalsFail<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof FileRefused) throw new PermanentJobFailure(err.message);
    throw err;
  }
}

/**
 * The processing job (docs/adr/0032): the file goes `processing`, the processor reads it, and
 * it ends `RAG Available` with its chunk count, or `failed` with the reason once no attempt is
 * left. A file deleted meanwhile ends the job quietly.
 */
export class FileProcessing implements JobHandler {
  constructor(
    private readonly files: FilesStore,
    private readonly blobs: BlobStore,
    private readonly processor: FileProcessor,
  ) {}

  async run(job: JobRow, signal: AbortSignal): Promise<void> {
    const file = await this.files.get(job.organization_id, job.node_id);
    if (!file || file.kind !== 'file' || file.blob_key === null) return;
    const stored = processableFile(file, file.blob_key, this.blobs);
    await this.files.setStatus(file.id, 'processing', { status_reason: null });
    const result = await refusalsFail(() => this.processor.process(stored, signal));
    if (signal.aborted) return;
    await this.files.setStatus(file.id, 'RAG Available', {
      status_reason: null,
      chunk_count: result.chunks,
    });
  }

  async failed(job: JobRow, reason: string): Promise<void> {
    await this.files.setStatus(job.node_id, 'failed', { status_reason: reason, chunk_count: null });
  }
}
