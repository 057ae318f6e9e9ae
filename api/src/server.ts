import { createServer, type Server } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { checkRemoteAddress, type Logger, startHealthServer } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import { createPinnedFetch, createWorkloadFetch, organizationNamespace } from '@aiplane/lib/mcp';
import { listen, type MountedRoute, openPlatform, routeTable } from '@aiplane/lib/service';
import { AvailableTools } from './mcp/available-tools.js';
import { AgentTools } from './inference/agent-tools.js';
import { McpOAuthLinking } from './mcp/oauth/oauth-linking.js';
import { McpServerCleanup } from './mcp/server-cleanup.js';
import { McpEnvSecrets } from './mcp/env-secrets.js';
import { McpServerStore } from './mcp/server-store.js';
import { WorkloadAdmission } from './mcp/workload-admission.js';
import { Agents } from './agents/agents.js';
import { AgentStore } from './agents/store.js';
import { KeycloakSharingDirectory } from './sharing/directory.js';
import { AGENT_SHARES } from './sharing/roles.js';
import { ShareStore } from './sharing/share-store.js';
import { Shares } from './sharing/shares.js';
import { Branding } from './platform/branding.js';
import { ThemeStore } from './platform/branding-store.js';
import { Registry } from 'prom-client';
import { inferenceMetrics } from './inference/inference-metrics.js';
import { Messages } from './inference/messages.js';
import { ModelCatalogue } from './inference/model-catalogue.js';
import { ModelCatalogueStore } from './inference/model-catalogue-store.js';
import { Tokenizers } from './inference/tokenizers.js';
import { ResourceProfiles } from './inference/resource-profiles.js';
import { ResourceProfileStore } from './inference/resource-profile-store.js';
import { DownloadStore } from './inference/downloads/download-store.js';
import {
  DEFAULT_WORKER_SETTINGS,
  DownloadWorker,
  type WorkerSettings,
} from './inference/downloads/download-worker.js';
import { ModelDownloads } from './inference/downloads/downloads.js';
import { SystemConfiguration } from './platform/config.js';
import { ConfigStore } from './platform/config-store.js';
import { BrandingLogo } from './platform/logo.js';
import { LogoStore } from './platform/logo-store.js';
import { TranslationStore } from './platform/translation-store.js';
import { Translations } from './platform/translations.js';
import { TenantStore } from './tenants/store.js';
import { OrganizationRows } from './tenants/organization-rows.js';
import { OAuthStateStore } from './mcp/oauth/state-store.js';
import { knowledgeFiles, type KnowledgeFilesOptions } from './knowledge/files-wiring.js';
import { CollectionSearch } from './knowledge/collection-search.js';
import { DOCUMENTS_COLLECTION, KnowledgeCollections } from './knowledge/collections.js';
import { CollectionsStore } from './knowledge/collections-store.js';
import { IndexingProcessor } from './knowledge/indexing-processor.js';
import { Rerankers, remoteOptionsOf } from './knowledge/catalogue-engines.js';
import { KnowledgeCleanup } from './knowledge/cleanup.js';
import { KnowledgeCleanupStore } from './knowledge/cleanup-store.js';
import { JobQueue } from './knowledge/files-queue.js';
import { REINDEX_QUEUE, Reindexing } from './knowledge/reindex.js';
import { ReindexStore } from './knowledge/reindex-store.js';
import { SpeechEngines } from './speech/speech-engines.js';
import { speechMetrics } from './speech/speech-metrics.js';
import { attachWebSockets, createApp } from './app.js';
import type { ApiConfig } from './config.js';

export interface RunningApi {
  server: Server;
  port: number;
  /** Every HTTP route the app serves (WebSocket paths apart: `STT_PATH`). */
  routes: MountedRoute[];
  /** The API's own metrics (the messages API's, docs/adr/0024). */
  registry: Registry;
  /** The bound port of `/metrics`, when AIPLANE_API_METRICS_PORT is set. */
  metricsPort?: number;
  close(): Promise<void>;
}

/** How often running reindexes are looked at for a switch no job's end made (ADR 0034). */
const REINDEX_WATCHDOG_MS = 15_000;

export interface StartApiOptions {
  kc?: KubeConfig;
  /**
   * TESTS ONLY: how old rows of MCP servers that are gone must be before the sweep removes
   * them (default ORPHAN_GRACE_SECONDS, 5 minutes). Deliberately not an environment variable.
   */
  mcpOrphanGraceSeconds?: number;
  /** TESTS ONLY: model download worker timings (lease, heartbeat, poll, timeouts, attempts). */
  modelDownloadWorker?: Partial<typeof DEFAULT_WORKER_SETTINGS>;
  /** The file processor (default: plain text) and, TESTS ONLY, the job queue's timings. */
  files?: KnowledgeFilesOptions;
}

/** Connects, migrates, and serves the API on config.host:config.port (0 picks a port). */
export async function startApi(
  config: ApiConfig,
  logger: Logger,
  opts: StartApiOptions = {},
): Promise<RunningApi> {
  const platform = await openPlatform(config, logger, opts.kc);
  const { kc, db, tenants, credentials, dialers } = platform;
  const servers = new McpServerStore(kc, platform.servers, new McpEnvSecrets(kc, logger));
  const agents = new AgentStore(db);
  const states = new OAuthStateStore(db, config.mcp.credentialKeys);
  const allowLoopback = config.mcp.allowLoopbackUpstreams;
  const downloadStore = new DownloadStore(db);
  const downloadFetch = createPinnedFetch({
    allowLoopback: config.modelStore.allowLoopbackSources,
    connectTimeoutMs: 10_000,
    redirects: 'return',
  });
  const workerSettings: WorkerSettings = {
    ...DEFAULT_WORKER_SETTINGS,
    ...opts.modelDownloadWorker,
    root: config.modelStore.dir,
    concurrency: config.modelStore.concurrency,
    maxFileBytes: config.modelStore.maxFileBytes,
  };
  const downloadWorker = new DownloadWorker(downloadStore, downloadFetch, workerSettings, logger);
  const models = new ModelCatalogue({
    store: new ModelCatalogueStore(db),
    keyring: config.mcp.credentialKeys,
    allowLoopback: config.inference.allowLoopbackBackends,
    // A catalogue change of an embedding model in use reindexes (ADR 0034).
    embeddingChange: (entry) => reindexing.catalogueChange(entry),
  });
  if (config.inference.allowLoopbackBackends) {
    logger.warn('AIPLANE_MODELS_ALLOW_LOOPBACK_BACKENDS is on: model backends may be on loopback');
  }
  // Backends are dialed with the address rules checked again at connect time (DNS rebinding).
  const backendFetch = createPinnedFetch({ allowLoopback: config.inference.allowLoopbackBackends });
  const clusterFetch = createWorkloadFetch();
  const registry = new Registry();
  const configStore = new ConfigStore(db);
  const dialing = {
    remote: backendFetch,
    cluster: clusterFetch,
    retryBaseMs: config.inference.retryBaseMs,
  };
  // Collections (ADR 0033): processed files are indexed with the real engines (ADR 0031), by
  // the local model or the catalogue embedding model `/v1/config` names (ADR 0034).
  const collections = new KnowledgeCollections({
    store: new CollectionsStore(db, 'knowledge_nodes'),
    engines: config.knowledgeEngines,
    logger,
    configured: async (organizationId) =>
      (await systemConfig.get(organizationId)).config.embedding_model,
    remote: async (organizationId, name) => {
      const backend = await models.backendFor(organizationId, name, 'embedding');
      return backend && remoteOptionsOf(backend, dialing);
    },
  });
  // Who is who for sharing files and agents: the identity provider's groups and members.
  const idp = config.identityProvider;
  const directory = new KeycloakSharingDirectory(
    { url: idp.url, realm: idp.realm, clientId: idp.clientId, clientSecret: idp.clientSecret },
    idp.accessCacheSeconds * 1000,
  );
  const indexer = new IndexingProcessor(collections, config.knowledgeEngines);
  const files = knowledgeFiles(config, db, logger, directory, {
    ...opts.files,
    processor: opts.files?.processor ?? indexer,
  });
  // The API, not the gateway, removes what is kept about servers and tenants that went
  // without its routes (and files' blobs a crash left behind).
  const cleanup = new McpServerCleanup({
    servers: platform.servers,
    tenants,
    credentials,
    agents,
    organizations: new OrganizationRows(db),
    knowledge: new KnowledgeCleanup({
      store: new KnowledgeCleanupStore(db),
      blobs: files.blobs,
      logger,
    }),
    logger,
    graceSeconds: opts.mcpOrphanGraceSeconds,
  });
  const reindexing: Reindexing = new Reindexing({
    db,
    store: new ReindexStore(db),
    collections,
    jobs: files.jobs,
    files: files.nodes,
    blobs: files.blobs,
    indexer,
    attempts: config.files.attempts,
    queued: () => reindexQueue.kick(),
    revertConfig: (trx, organizationId, from, to) =>
      configStore.revertEmbeddingModel(trx, organizationId, from, to),
    logger,
  });
  const reindexQueue = new JobQueue(
    REINDEX_QUEUE,
    files.jobs,
    reindexing,
    { ...files.queueSettings, concurrency: config.files.concurrency },
    logger,
  );
  const systemConfig = new SystemConfiguration(configStore, {
    prepare: (organizationId, model) => reindexing.prepare(organizationId, model, 'config'),
  });
  const rerankers = new Rerankers({
    models,
    localEmbedder: () => collections.localEmbedder(),
    dialing,
    configured: async (organizationId) =>
      (await systemConfig.get(organizationId)).config.reranker_model,
  });
  const collectionSearch = new CollectionSearch({
    store: collections.store,
    embedderFor: (g) => collections.embedderFor(g),
    readableBy: (caller) => collections.readableBy(db, caller),
    settings: async (organizationId) => {
      const { config: c } = await systemConfig.get(organizationId);
      if (!c.reranker_enabled || c.reranker_model === null) {
        return { retrievalK: c.retrieval_k, rerank: undefined };
      }
      // A selected model removed from the catalogue since: the local default, as before.
      const reranker =
        (await rerankers.named(organizationId, c.reranker_model)) ?? (await rerankers.local());
      return { retrievalK: c.retrieval_k, rerank: { reranker, topN: c.rerank_top_n } };
    },
  });
  const sharedAgents = new Agents({
    store: agents,
    shares: new Shares(new ShareStore(db, AGENT_SHARES), directory),
    directory,
    foreignServerIds: async (organizationId: string, ids: readonly string[]) => {
      const namespace = organizationNamespace(tenants, organizationId);
      if (namespace === undefined) return [...ids];
      // Misses read through the cache: one LIST of the namespace however many ids miss.
      const found = await Promise.all(ids.map((id) => servers.find(namespace, id)));
      return ids.filter((_, i) => found[i] === undefined);
    },
    provisioned: (organizationId: string) =>
      organizationNamespace(tenants, organizationId) !== undefined,
  });
  const messages = new Messages({
    retrieval: {
      passages: async (organizationId, principal, documentIds, query) => {
        const caller = await files.router.files.caller(principal, organizationId);
        try {
          const answer = await collectionSearch.search(
            organizationId,
            DOCUMENTS_COLLECTION,
            { query, filters: [] },
            caller,
            documentIds,
          );
          return answer.results.map((r) => ({ fileName: r.file_name, text: r.text }));
        } catch (err) {
          // No file of the organization was indexed yet: no passages.
          if (err instanceof ApiError && err.code === 'collection_not_found') return [];
          throw err;
        }
      },
    },
    catalogue: models,
    agents: sharedAgents,
    remoteFetch: backendFetch,
    clusterFetch,
    tokenizers: new Tokenizers({ root: config.modelStore.dir, logger }),
    requestTimeoutMs: config.inference.requestTimeoutMs,
    retryBaseMs: config.inference.retryBaseMs,
    logger,
    metrics: inferenceMetrics(registry),
    agentTools: new AgentTools({
      gatewayUrl: config.inference.gatewayUrl,
      fetch: clusterFetch,
      timeoutMs: config.mcp.upstreamTimeoutMs,
      callTimeoutMs: config.inference.requestTimeoutMs,
      logger,
    }),
    agentMaxSteps: config.inference.agentMaxSteps,
  });
  const speechEngines = new SpeechEngines({
    config: config.speech,
    models,
    remote: backendFetch,
    cluster: clusterFetch,
    retryBaseMs: config.inference.retryBaseMs,
    requestTimeoutMs: config.inference.requestTimeoutMs,
    logger,
  });
  const deps = {
    logger,
    tenants,
    tenantStore: new TenantStore(kc, tenants),
    apiKeys: platform.apiKeys,
    mcp: {
      servers,
      workloads: new WorkloadAdmission(kc),
      credentials,
      gatewayBase: config.mcp.gatewayPublicUrl,
      tools: new AvailableTools({
        ...dialers,
        credentials,
        timeoutMs: config.mcp.upstreamTimeoutMs,
        logger,
      }),
      checkAddress: async (address: string) => {
        const check = await checkRemoteAddress(address, { allowLoopback });
        if (!check.ok) throw new ApiError('mcp_server_address_invalid', check.message);
      },
      forget: (serverId: string, organizationId: string) =>
        cleanup.forget(serverId, organizationId),
    },
    mcpOAuth: new McpOAuthLinking({
      ...dialers,
      credentials,
      states,
      gatewayBase: config.mcp.gatewayPublicUrl,
      redirectUrl: config.mcp.oauthRedirectUrl,
      allowLoopback,
      timeoutMs: config.mcp.upstreamTimeoutMs,
      logger,
    }),
    agents: { agents: sharedAgents },
    translations: new Translations(new TranslationStore(db)),
    config: systemConfig,
    branding: new Branding(new ThemeStore(db)),
    resourceProfiles: new ResourceProfiles(new ResourceProfileStore(db)),
    logo: new BrandingLogo(new LogoStore(db)),
    modelDownloads: new ModelDownloads({
      store: downloadStore,
      worker: downloadWorker,
      root: config.modelStore.dir,
      allowLoopback: config.modelStore.allowLoopbackSources,
    }),
    models,
    messages,
    files: files.router,
    collectionSearch,
    rerankers,
    reindexing,
    speech: { engines: speechEngines, config: config.speech, metrics: speechMetrics(registry) },
    authenticator: platform.authenticator,
    portal: { issuer: config.portal.issuer, clientId: config.portal.clientId },
    ready: () => platform.ready(),
  };
  const app = createApp(deps);
  const server = createServer(app);
  attachWebSockets(server, deps);
  const listening = await listen(server, config.host, config.port, logger, 'api');
  // Prometheus only, when asked for: the probes are on the public port.
  const metricsServer =
    config.metricsPort === null
      ? undefined
      : await startHealthServer({ host: config.host, port: config.metricsPort, registry, logger });
  if (metricsServer) {
    logger.info({ host: config.host, port: metricsServer.port }, 'api metrics listening');
  }
  cleanup.start();
  downloadWorker.start();
  files.queue.start();
  // Reindexes left running by the last stop go on (ADR 0034).
  await reindexing
    .resume()
    .catch((err: unknown) => logger.error({ err }, 'reindex: resuming failed'));
  reindexQueue.start();
  reindexing.startWatchdog(REINDEX_WATCHDOG_MS);
  return {
    ...listening,
    routes: routeTable(app),
    registry,
    metricsPort: metricsServer?.port,
    close: async () => {
      await listening.close();
      speechEngines.close();
      await downloadWorker.stop();
      await files.queue.stop();
      await reindexQueue.stop();
      await reindexing.stopWatchdog();
      await collections.close();
      await downloadFetch.close();
      await metricsServer?.close();
      await cleanup.stop();
      await backendFetch.close();
      await clusterFetch.close();
      await platform.close();
    },
  };
}
