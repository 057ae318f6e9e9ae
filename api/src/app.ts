import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type Express } from 'express';
import type { Logger, ResourceCache } from '@aiplane/lib';
import { type Authenticator, authenticate, type ApiKeyStore } from '@aiplane/lib/auth';
import { errorMiddleware, notFound } from '@aiplane/lib/errors';
import {
  authenticatedRouter,
  documentedRoutes,
  jsonBodyParser,
  type OpenApiDocument,
  openApiDocument,
  pathOnly,
  probeRoutes,
  refuseNulInUrl,
  requestLog,
} from '@aiplane/lib/service';
import type { TenantLifecycle } from '@aiplane/crds';
import { agentsRouter, type AgentsRouterOptions } from './agents/routes.js';
import { docsRoutes } from './docs/routes.js';
import { portalRoutes, type PortalOptions } from './portal/routes.js';
import { anthropicRouter } from './inference/anthropic-routes.js';
import type { Messages } from './inference/messages.js';
import type { ModelCatalogue } from './inference/model-catalogue.js';
import { modelCatalogueRouter } from './inference/model-catalogue-routes.js';
import { resourceProfilesRouter } from './inference/resource-profile-routes.js';
import type { ResourceProfiles } from './inference/resource-profiles.js';
import { modelInstallerRouter } from './inference/downloads/download-routes.js';
import type { ModelDownloads } from './inference/downloads/downloads.js';
import { filesRouter, type FilesRouterOptions } from './knowledge/files-routes.js';
import type { CollectionSearch } from './knowledge/collection-search.js';
import type { Reindexing } from './knowledge/reindex.js';
import { collectionsRouter } from './knowledge/collections-routes.js';
import { foldersRouter } from './knowledge/folders-routes.js';
import type { Rerankers } from './knowledge/catalogue-engines.js';
import { rerankBodyErrors, rerankRouter } from './knowledge/rerank-routes.js';
import { apiKeysRouter } from './keys/routes.js';
import type { McpOAuthLinking } from './mcp/oauth/oauth-linking.js';
import { mcpOAuthRouter } from './mcp/oauth/routes.js';
import { mcpServersRouter, type McpServersRouterOptions } from './mcp/routes.js';
import { meRouter } from './me/routes.js';
import { brandingRouter } from './platform/branding-routes.js';
import type { Branding } from './platform/branding.js';
import { configRouter } from './platform/config-routes.js';
import type { BrandingLogo } from './platform/logo.js';
import { logoRouter } from './platform/logo-routes.js';
import type { SystemConfiguration } from './platform/config.js';
import { translationsRouter } from './platform/translation-routes.js';
import type { Translations } from './platform/translations.js';
import type { SpeechConfig } from './speech/speech-config.js';
import type { SpeechEngines } from './speech/speech-engines.js';
import type { SpeechMetrics } from './speech/speech-metrics.js';
import { STT_PATH, STT_ROUTE, sttUpgradeHandler } from './speech/stt-socket.js';
import { tenantsRouter } from './tenants/routes.js';
import type { TenantStore } from './tenants/store.js';

export interface AppDeps {
  logger: Logger;
  authenticator: Authenticator;
  apiKeys: ApiKeyStore;
  /** The watch cache of tenants: which namespace is whose organization. */
  tenants: ResourceCache<TenantLifecycle>;
  /** Tenant records for the admin routes. */
  tenantStore: TenantStore;
  mcp: Omit<McpServersRouterOptions, 'tenants'>;
  /** OAuth linking of upstream credentials. */
  mcpOAuth: McpOAuthLinking;
  agents: AgentsRouterOptions;
  /** Translation overrides (platform settings). */
  translations: Translations;
  /** System configuration (platform settings). */
  config: SystemConfiguration;
  /** The branding theme (platform settings). */
  branding: Branding;
  /** Infrastructure profiles for model deployment. */
  resourceProfiles: ResourceProfiles;
  /** The branding logo (platform settings). */
  logo: BrandingLogo;
  /** Model-installer downloads into the model store. */
  modelDownloads: ModelDownloads;
  /** The model catalogue (docs/adr/0024). */
  models: ModelCatalogue;
  /** The vendor-compatible messages API under /anthropic (docs/adr/0024). */
  messages: Messages;
  /** Files and folders with sharing (docs/adr/0032). */
  files: FilesRouterOptions;
  /** Collection search (docs/adr/0033). */
  collectionSearch: CollectionSearch;
  /** The rerankers of `POST /v1/rerank` (docs/adr/0031). */
  rerankers: Rerankers;
  /** Speech-to-text engines and the socket's limits (docs/adr/0036). */
  speech: {
    engines: Pick<SpeechEngines, 'forSession'>;
    config: SpeechConfig;
    metrics: SpeechMetrics;
  };
  /** Reindexing the collection with another embedding model (docs/adr/0034). */
  reindexing: Reindexing;
  /** The portal: where it signs in (docs/adr/0037). */
  portal: PortalOptions;
  /** Readiness beyond the process being up (database reachable, …). */
  ready?: () => Promise<boolean>;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLog(deps.logger));
  probeRoutes(app, deps.ready);
  // Public: the document and the pages that show it (their calls are authenticated).
  let document: OpenApiDocument | undefined;
  docsRoutes(app, () => (document ??= apiDocument(app)));
  // Public: the portal's page and files; it calls /v1 with the user's token (docs/adr/0037).
  portalRoutes(app, deps.portal);

  // Every API router: authentication, then can_access_api (spec: core-api.md, Permissions).
  const v1 = authenticatedRouter(
    express.Router(),
    authenticate(deps.authenticator),
    'can_access_api',
  );
  // Before the JSON parser: a logo upload is raw bytes whatever Content-Type it claims.
  v1.use('/branding/logo', logoRouter({ logo: deps.logo }));
  // UTF-8 only, no NUL in strings (docs/adr/0042).
  v1.use(jsonBodyParser('1mb'));
  v1.use('/rerank', rerankBodyErrors);
  v1.use('/me', meRouter());
  v1.use('/api-keys', apiKeysRouter({ apiKeys: deps.apiKeys }));
  v1.use('/admin/tenants', tenantsRouter({ tenants: deps.tenantStore }));
  v1.use('/mcp/servers', mcpServersRouter({ ...deps.mcp, tenants: deps.tenants }));
  v1.use(
    '/mcp',
    mcpOAuthRouter({ servers: deps.mcp.servers, tenants: deps.tenants, linking: deps.mcpOAuth }),
  );
  v1.use('/agents', agentsRouter(deps.agents));
  v1.use('/translations', translationsRouter({ translations: deps.translations }));
  v1.use('/config', configRouter({ config: deps.config }));
  v1.use('/branding', brandingRouter({ branding: deps.branding }));
  v1.use('/resource-profiles', resourceProfilesRouter({ profiles: deps.resourceProfiles }));
  v1.use('/model-installer', modelInstallerRouter({ downloads: deps.modelDownloads }));
  v1.use('/models', modelCatalogueRouter({ catalogue: deps.models }));
  v1.use('/files', filesRouter(deps.files));
  v1.use('/folders', foldersRouter(deps.files));
  v1.use(
    '/collections',
    collectionsRouter({
      search: deps.collectionSearch,
      files: deps.files.files,
      reindexing: deps.reindexing,
    }),
  );
  v1.use('/rerank', rerankRouter({ rerankers: deps.rerankers }));
  // Before authentication: no path or query with a NUL reaches a route (docs/adr/0042).
  app.use('/v1', refuseNulInUrl);
  app.use('/v1', v1);
  // The vendor-compatible API: its own /v1 below its prefix, its own error shape (spec:
  // Versioning 1; docs/adr/0024).
  app.use(
    '/anthropic',
    anthropicRouter({
      messages: deps.messages,
      authenticate: authenticate(deps.authenticator),
      logger: deps.logger,
    }),
  );

  app.use(notFound);
  app.use(errorMiddleware(deps.logger));
  // Built now, so a route mounted without operation() stops the start, naming it.
  document = apiDocument(app);
  return app;
}

/** The OpenAPI document of the app's routes and its WebSocket (docs/adr/0021). */
export function apiDocument(app: Express): OpenApiDocument {
  return openApiDocument({
    title: 'aiplane API',
    version: 'v1',
    description:
      'The aiplane control plane API. Authenticate with a platform API key (`X-Api-Key: sk-svc-v1-…`, or as a bearer token) or a JWT of the identity provider; every `/v1` route needs the `can_access_api` permission.',
    tags: API_TAGS,
    routes: documentedRoutes(app),
    extra: [STT_ROUTE],
  });
}

const API_TAGS = [
  { name: 'me', description: 'The caller.' },
  {
    name: 'collections',
    description: 'Collection search over the organization’s files (docs/adr/0033).',
  },
  { name: 'api-keys', description: 'Personal API keys.' },
  { name: 'tenants', description: 'Tenant lifecycle administration (platform admins).' },
  { name: 'mcp-servers', description: 'MCP servers and the caller’s credentials for them.' },
  { name: 'agents', description: 'Agents (Custom GPTs) and their MCP servers.' },
  { name: 'translations', description: 'Translation overrides of the portal.' },
  { name: 'config', description: 'System configuration.' },
  { name: 'branding', description: 'The portal’s branding theme.' },
  { name: 'resource-profiles', description: 'Infrastructure profiles for model deployment.' },
  {
    name: 'model-installer',
    description: 'Downloads of model files into the model store (docs/adr/0025).',
  },
  { name: 'models', description: 'The model catalogue and its backends.' },
  {
    name: 'files',
    description: 'Files and folders, shared with users and groups (docs/adr/0032).',
  },
  {
    name: 'messages',
    description:
      'The vendor-compatible messages API under /anthropic (errors in the vendor’s shape).',
  },
  { name: 'speech', description: 'Speech-to-text.' },
  { name: 'documentation', description: 'This document and the pages that show it.' },
  { name: 'portal', description: 'The web app for administrators and users (docs/adr/0037).' },
  { name: 'probes', description: 'Liveness and readiness.' },
];

/** Routes WebSocket upgrades; anything but a known socket path is refused. */
export function attachWebSockets(server: Server, deps: AppDeps): void {
  const stt = sttUpgradeHandler({
    authenticator: deps.authenticator,
    engineFor: (organizationId, model) => deps.speech.engines.forSession(organizationId, model),
    config: deps.speech.config,
    logger: deps.logger,
    metrics: deps.speech.metrics,
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOnly(req.url) === STT_PATH) stt(req, socket, head);
    else socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
}
