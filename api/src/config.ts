import { isAbsolute } from 'node:path';
import { ConfigError } from '@aiplane/lib';
import { readInt, readServiceConfig, type ServiceConfig } from '@aiplane/lib/service';
import {
  type KnowledgeEngineConfig,
  readKnowledgeEngineConfig,
} from './knowledge/engine-config.js';
import type { S3StoreSettings } from './knowledge/files-s3-blob-store.js';
import { readFilesS3Config } from './knowledge/files-store-config.js';
import { readSpeechConfig, type SpeechConfig } from './speech/speech-config.js';

/** The API's configuration: the shared settings and where it listens; read once, frozen. */
export interface ApiConfig extends ServiceConfig {
  readonly host: string;
  readonly port: number;
  /** Model-installer downloads (docs/adr/0025). */
  readonly modelStore: {
    /** Where model files are written (a volume; the chart mounts a PVC). */
    readonly dir: string;
    /** Downloads one replica works at once. */
    readonly concurrency: number;
    /** The most bytes one file may have. */
    readonly maxFileBytes: number;
    /**
     * TEST ONLY (default false): sources on 127.0.0.0/8 and ::1 pass the address rules, so
     * tests can download from a file server on loopback. Never in a deployment.
     */
    readonly allowLoopbackSources: boolean;
  };
  /** Files and folders (docs/adr/0032). */
  readonly files: {
    /** The blob store's directory (a volume; the chart mounts a PVC), when `s3` is null. */
    readonly dir: string;
    /**
     * The S3-compatible blob store (`AIPLANE_FILES_STORE=s3`, docs/adr/0038); null: the
     * directory store. Holds the S3 credentials: never logged.
     */
    readonly s3: S3StoreSettings | null;
    /** The most bytes one uploaded file may have. */
    readonly maxBytes: number;
    /** Processing jobs one replica runs at once. */
    readonly concurrency: number;
    /** Attempts of a processing job before the file is `failed`. */
    readonly attempts: number;
  };
  /**
   * Where the API's `/metrics` (Prometheus) listens, on `host`; null (unset): not served.
   * Never the public port.
   */
  readonly metricsPort: number | null;
  /** Model backends and the messages API (docs/adr/0024). */
  readonly inference: {
    /**
     * TEST ONLY (default false): backends on 127.0.0.0/8 and ::1 pass the address rules, as
     * AIPLANE_MCP_ALLOW_LOOPBACK_UPSTREAMS does for MCP servers. Never in a deployment.
     */
    readonly allowLoopbackBackends: boolean;
    /** The whole of one messages request, retries included (spec: Limits, 600 s). */
    readonly requestTimeoutMs: number;
    /** The first retry's delay; each next one doubles it (Retry-After wins when larger). */
    readonly retryBaseMs: number;
    /**
     * Where the API reaches the MCP gateway to run agents' tools as the caller
     * (`AIPLANE_GATEWAY_INTERNAL_URL`, else the public URL; docs/adr/0029). Null: agents answer
     * without their tools, and the model is told why.
     */
    readonly gatewayUrl: string | null;
    /** Backend calls one agent request may make, tool rounds included (default 10). */
    readonly agentMaxSteps: number;
  };
  /** Embeddings, extraction, chunking and their limits (docs/adr/0031). */
  readonly knowledgeEngines: KnowledgeEngineConfig;
  /** The portal's sign-in (docs/adr/0037). */
  readonly portal: {
    /** The issuer as browsers reach it (`AIPLANE_PORTAL_OIDC_ISSUER`, default the API's issuer). */
    readonly issuer: string;
    /** The realm's public client (`AIPLANE_PORTAL_CLIENT_ID`, default `aiplane-portal`). */
    readonly clientId: string;
  };
  /** Speech-to-text engines and the socket's limits (docs/adr/0036). */
  readonly speech: SpeechConfig;
}

export { ConfigError };

/** The model store's default: the chart's volume mount. */
export const DEFAULT_MODEL_STORE_DIR = '/var/lib/aiplane/models';

/** The blob store's default: the chart's volume mount. */
export const DEFAULT_FILES_DIR = '/var/lib/aiplane/files';

export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const problems: string[] = [];
  const shared = readServiceConfig(env, problems);
  const host = env.AIPLANE_API_HOST || '127.0.0.1';
  const port = readInt(env, 'AIPLANE_API_PORT', 8080, { min: 0, max: 65535 }, problems);
  const dir = env.AIPLANE_MODEL_STORE_DIR || DEFAULT_MODEL_STORE_DIR;
  if (!isAbsolute(dir)) problems.push('AIPLANE_MODEL_STORE_DIR must be an absolute path');
  const loopbackSources = env.AIPLANE_MODEL_DOWNLOAD_ALLOW_LOOPBACK_SOURCES;
  if (
    loopbackSources !== undefined &&
    loopbackSources !== '' &&
    loopbackSources !== 'true' &&
    loopbackSources !== 'false'
  ) {
    problems.push(
      `AIPLANE_MODEL_DOWNLOAD_ALLOW_LOOPBACK_SOURCES must be true or false, got "${loopbackSources}"`,
    );
  }
  const modelStore = Object.freeze({
    dir,
    concurrency: readInt(
      env,
      'AIPLANE_MODEL_DOWNLOAD_CONCURRENCY',
      2,
      { min: 1, max: 16 },
      problems,
    ),
    maxFileBytes: readInt(
      env,
      'AIPLANE_MODEL_DOWNLOAD_MAX_FILE_BYTES',
      200 * 2 ** 30,
      { min: 1, max: Number.MAX_SAFE_INTEGER },
      problems,
    ),
    allowLoopbackSources: loopbackSources === 'true',
  });
  const filesDir = env.AIPLANE_FILES_DIR || DEFAULT_FILES_DIR;
  if (!isAbsolute(filesDir)) problems.push('AIPLANE_FILES_DIR must be an absolute path');
  const filesMaxBytes = readInt(
    env,
    'AIPLANE_FILES_MAX_BYTES',
    50 * 2 ** 20,
    { min: 1, max: 2 ** 40 },
    problems,
  );
  const files = Object.freeze({
    dir: filesDir,
    s3: readFilesS3Config(env, filesMaxBytes, problems),
    maxBytes: filesMaxBytes,
    concurrency: readInt(
      env,
      'AIPLANE_FILES_PROCESSING_CONCURRENCY',
      1,
      { min: 1, max: 16 },
      problems,
    ),
    attempts: readInt(env, 'AIPLANE_FILES_PROCESSING_ATTEMPTS', 5, { min: 1, max: 20 }, problems),
  });
  const metricsPort =
    env.AIPLANE_API_METRICS_PORT === undefined || env.AIPLANE_API_METRICS_PORT === ''
      ? null
      : readInt(env, 'AIPLANE_API_METRICS_PORT', 0, { min: 0, max: 65535 }, problems);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) {
    problems.push('AIPLANE_API_METRICS_PORT must differ from AIPLANE_API_PORT');
  }
  const loopback = env.AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS;
  if (loopback !== undefined && !['', 'true', 'false'].includes(loopback)) {
    problems.push(
      `AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS must be true or false, got "${loopback}"`,
    );
  }
  const inference = Object.freeze({
    allowLoopbackBackends: loopback === 'true',
    requestTimeoutMs: readInt(
      env,
      'AIPLANE_INFERENCE_TIMEOUT_MS',
      600_000,
      { min: 1000, max: 3_600_000 },
      problems,
    ),
    retryBaseMs: readInt(
      env,
      'AIPLANE_INFERENCE_RETRY_BASE_MS',
      500,
      { min: 0, max: 60_000 },
      problems,
    ),
    // Where the API reaches the gateway, else the gateway's public URL.
    gatewayUrl: httpUrlOr(
      env,
      'AIPLANE_GATEWAY_INTERNAL_URL',
      shared.mcp.gatewayPublicUrl,
      problems,
    ),
    agentMaxSteps: readInt(env, 'AIPLANE_AGENT_MAX_STEPS', 10, { min: 1, max: 100 }, problems),
  });
  const knowledgeEngines = readKnowledgeEngineConfig(env, dir, problems);
  const portal = Object.freeze({
    issuer: httpUrlOr(env, 'AIPLANE_PORTAL_OIDC_ISSUER', shared.oidc.issuer, problems),
    clientId: env.AIPLANE_PORTAL_CLIENT_ID || 'aiplane-portal',
  });
  const speech = readSpeechConfig(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...shared,
    host,
    port,
    modelStore,
    files,
    metricsPort,
    inference,
    knowledgeEngines,
    portal,
    speech,
  });
}

/** `name` as an http(s) URL without trailing slashes, else `fallback` (unset, or reported when bad). */
function httpUrlOr<T extends string | null>(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: T,
  problems: string[],
): string | T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  try {
    const u = new URL(raw);
    if (u.protocol === 'http:' || u.protocol === 'https:') return raw.replace(/\/+$/, '');
  } catch {
    // reported below
  }
  problems.push(`${name} must be an http(s) URL, got "${raw}"`);
  return fallback;
}
