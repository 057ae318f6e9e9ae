import type { BlobStore } from './files-blob-store.js';
import { FileRefused, type FileProcessor } from './files-processor.js';
import { type JobHandler, PermanentJobFailure } from './files-queue.js';
import type { JobRow } from './files-queue-store.js';
import type { FilesStore } from './files-store.js';

/** The queue of file processing jobs. */
export const PROCESSING_QUEUE = 'file-processing';

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
    await this.files.setStatus(file.id, 'processing', { status_reason: null });
    const key = file.blob_key;
    let result;
    try {
      result = await this.processor.process(
        {
          id: file.id,
          organizationId: file.organization_id,
          ownerId: file.owner_id,
          name: file.name,
          mediaType: file.media_type ?? 'application/octet-stream',
          sizeBytes: Number(file.size_bytes ?? 0),
          sha256: file.sha256 ?? '',
          open: async () => {
            const stream = await this.blobs.open(key);
            if (!stream) throw new FileRefused('the file’s bytes are missing from the blob store');
            return stream;
          },
        },
        signal,
      );
    } catch (err) {
      if (err instanceof FileRefused) throw new PermanentJobFailure(err.message);
      throw err;
    }
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
