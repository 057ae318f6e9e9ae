export { attachWebSockets, createApp, type AppDeps } from './app.js';
export { ConfigError, loadApiConfig, type ApiConfig } from './config.js';
export { startApi, type RunningApi, type StartApiOptions } from './server.js';
export { ERROR_CODES, type ErrorCode } from '@aiplane/lib/errors';
export { API_KEY_PREFIX } from '@aiplane/lib/auth';
export type { TenantRecord } from './tenants/record.js';
export type { ServerCondition, ServerRecord, ServerStatusRecord } from './mcp/server-record.js';
export { API_RULES, API_TENANT_RULES } from './rbac.js';
export { OrganizationRows } from './tenants/organization-rows.js';
export { podSchedulingOf, type ResourceProfile } from './inference/resource-profiles.js';
export { bundledAssetPath, DOCS_ASSETS, packageDir } from './docs/assets.js';
export { BUNDLED_PORTAL_DIR, PORTAL_BUILD_DIR } from './portal/assets.js';
export type { Model } from './inference/model-catalogue.js';
export {
  type FileProcessor,
  FileRefused,
  PlainTextProcessor,
  type ProcessableFile,
  type ProcessingResult,
} from './knowledge/files-processor.js';
// The knowledge engines (docs/adr/0031): embeddings, extraction, chunking, reranking.
export { cosine, type Embedder } from './knowledge/embedder.js';
export {
  LOCAL_EMBEDDING_MODEL,
  LocalEmbedder,
  type LocalEmbedderOptions,
} from './knowledge/local-embedder.js';
export { MINILM_MAX_TOKENS, MiniLmEncoder } from './knowledge/minilm-encoder.js';
export { MalformedBackendAnswer, OpenAiEmbedder } from './knowledge/openai-embedder.js';
export {
  checkRerankRequest,
  LocalReranker,
  RerankBadRequest,
  type Reranker,
  type RerankRequest,
  type RerankResult,
} from './knowledge/reranker.js';
export { RemoteReranker } from './knowledge/remote-reranker.js';
export { extractText, type DocumentFormat, type ExtractedText } from './knowledge/extract.js';
export { type Chunk, chunkText } from './knowledge/chunker.js';
export {
  engineApiError,
  ExtractionFailed,
  FileTooLarge,
  TooManyChunks,
  UnsupportedFileType,
} from './knowledge/engine-errors.js';
export {
  type KnowledgeEngineConfig,
  readKnowledgeEngineConfig,
} from './knowledge/engine-config.js';
// Speech-to-text (docs/adr/0036): the engines, the decoders and the socket's protocol.
export type { Recognition, SpeechEngine, Transcript } from './speech/engine.js';
export { PocketSphinxEngine, type PocketSphinxOptions } from './speech/pocketsphinx-engine.js';
export { TranscriptionEngine } from './speech/transcription-engine.js';
export { createDecoder } from './speech/decoders.js';
export { ENGINE_SAMPLE_RATE, WavDecoder } from './speech/pcm-decoder.js';
export {
  DEFAULT_POCKETSPHINX_MODEL_DIR,
  LOCAL_STT_MODEL,
  readSpeechConfig,
  type SpeechConfig,
} from './speech/speech-config.js';
export { STT_ENCODINGS, STT_LANGUAGES, type SttEncoding } from './speech/stt-protocol.js';
