import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import { BackendFailure } from '../inference/backend-client.js';
import { BlobStoreFailure } from './files-blob-store.js';
import { LocalEmbedderError } from './local-embedder.js';
import { RerankBadRequest } from './reranker.js';

/** The engines' refusals of a file (docs/adr/0031); each names the rule and the limit. */
export class FileRefused extends Error {
  override readonly name: string = 'FileRefused';
}
/** Neither the content type nor the extension is a format the extractor reads. */
export class UnsupportedFileType extends FileRefused {
  override readonly name = 'UnsupportedFileType';
}
/** The file is of a supported format but cannot be read (corrupt, encrypted, binary). */
export class ExtractionFailed extends FileRefused {
  override readonly name = 'ExtractionFailed';
}
/** The file has more bytes than AIPLANE_KNOWLEDGE_MAX_FILE_BYTES. */
export class FileTooLarge extends FileRefused {
  override readonly name = 'FileTooLarge';
}
/** The file's text makes more chunks than AIPLANE_KNOWLEDGE_MAX_CHUNKS_PER_FILE. */
export class TooManyChunks extends FileRefused {
  override readonly name = 'TooManyChunks';
}

/**
 * An engine's failure as the platform's answer, for a route to throw; undefined for anything
 * else (a bug: the error middleware answers 500 and logs it).
 *
 * - a refused file: 422 naming `file` (413 `request_too_large` when it is too large);
 * - a bad rerank request, or one the rerank backend refused as bad: 400 `rerank_bad_request`;
 * - a backend that is unreachable, overloaded, timed out, rate limited, or a local model that
 *   cannot run: 503 `model_backend_unavailable`;
 * - a backend that refused the platform's credentials or request, or answered nonsense: 502
 *   `model_backend_error`;
 * - the file store (S3) unreachable, overloaded or timed out: 503 `file_store_unavailable`; a
 *   refusal (credentials, bucket): 502 `file_store_error` (docs/adr/0038).
 *
 * Messages name the rule; a backend's own message is quoted at most 300 characters (as
 * callBackend cut it), never the request's texts.
 */
export function engineApiError(
  err: unknown,
  context: 'embed' | 'rerank' = 'embed',
): ApiError | ValidationFailed | undefined {
  if (err instanceof FileTooLarge) return new ApiError('request_too_large', err.message);
  if (err instanceof FileRefused)
    return new ValidationFailed([{ field: 'file', message: err.message }]);
  if (err instanceof BlobStoreFailure) {
    return new ApiError(
      err.unavailable ? 'file_store_unavailable' : 'file_store_error',
      err.message,
    );
  }
  if (err instanceof RerankBadRequest) return new ApiError('rerank_bad_request', err.message);
  if (err instanceof LocalEmbedderError)
    return new ApiError('model_backend_unavailable', err.message);
  if (err instanceof BackendFailure) {
    const s = err.status;
    if (err.timedOut) {
      return new ApiError('model_backend_unavailable', 'the model backend did not answer in time');
    }
    if (s === undefined || s === 429 || s >= 500) {
      return new ApiError('model_backend_unavailable', err.message);
    }
    if (context === 'rerank' && (s === 400 || s === 413 || s === 422)) {
      return new ApiError('rerank_bad_request', `the reranker refused the request: ${err.message}`);
    }
    if (s === 401 || s === 403) {
      return new ApiError(
        'model_backend_error',
        'the model backend refused the platform’s credentials',
      );
    }
    return new ApiError('model_backend_error', err.message);
  }
  return undefined;
}
