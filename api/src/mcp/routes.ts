import { Type } from '@sinclair/typebox';
import { type Request, type Response, Router } from 'express';
import type { McpServer, TenantLifecycle } from '@aiplane/crds';
import { ApiError } from '@aiplane/lib/errors';
import type { ResourceCache } from '@aiplane/lib';
import type { CredentialStore } from '@aiplane/lib/store';
import { ListOf, Nullable, operation } from '@aiplane/lib/service';
import { isImageProblem, parseImageReference } from './image-reference.js';
import {
  callerScope,
  findCallerServer,
  findInOrganization,
  serverIdParam,
} from './caller-server.js';
import {
  CreateServerSchema,
  MANAGED_FIELDS,
  parseCreateServer,
  parseUpdateServer,
  UpdateServerSchema,
} from './server-body.js';
import { serverRecord, type CallerLink, ServerRecordSchema } from './server-record.js';
import { specOf, updatedSpec } from './server-resource.js';
import { notProvisioned } from '../tenants/provisioning.js';
import type { McpServerStore } from './server-store.js';
import type { WorkloadAdmission } from './workload-admission.js';
import type { AvailableTools } from './available-tools.js';

export const CredentialBody = Type.Object(
  { credential: Type.String({ minLength: 1, maxLength: 4096, pattern: '\\S' }) },
  { additionalProperties: false, title: 'McpCredential' },
);
const ServerListSchema = ListOf('servers', ServerRecordSchema, 'McpServerList');
const AvailableToolsSchema = Type.Object(
  {
    tools: Type.Array(
      Type.Object({
        name: Type.String(),
        title: Nullable(Type.String()),
        description: Nullable(Type.String()),
        input_schema: Type.Object({}, { description: 'the tool’s JSON Schema, as declared' }),
        allowed: Type.Boolean({ description: 'whether the allowlist lets clients use it' }),
      }),
    ),
    count: Type.Integer(),
  },
  { title: 'AvailableTools' },
);
const ServerId = Type.String({ description: 'the server’s id (a UUID)' });

export interface McpServersRouterOptions {
  servers: McpServerStore;
  /** Asks the cluster whether it would run a managed server's workload (a dry-run). */
  workloads: WorkloadAdmission;
  tenants: ResourceCache<TenantLifecycle>;
  credentials: CredentialStore;
  tools: AvailableTools;
  /** Checks a remote address when it is stored; answers 400 mcp_server_address_invalid. */
  checkAddress: (address: string) => Promise<void>;
  /** `{gateway_base}`, or null when the deployment publishes no gateway. */
  gatewayBase: string | null;
  /**
   * Removes what the database keeps about a server of the organization (credentials, OAuth
   * rows, agents' references): `McpServerCleanup.forget`, which also serves the watch.
   */
  forget: (serverId: string, organizationId: string) => Promise<void>;
}

/** Fields that change the Pod the cluster runs (env only renames the Secret it reads). */
const WORKLOAD_FIELDS = MANAGED_FIELDS.filter((f) => f !== 'env');

/** `/v1/mcp/servers` (spec: "MCP management"). */
export function mcpServersRouter(opts: McpServersRouterOptions): Router {
  const router = Router();

  /** The caller's organization and its namespace (undefined when it has no tenant). */
  const scope = (req: Request, res: Response) => callerScope(req, res, opts.tenants);

  /** A server of the caller's organization, or 403 mcp_server_access_denied. */
  const find = (req: Request, res: Response) => findCallerServer(req, res, opts);

  const record = async (server: McpServer, userId: string) =>
    serverRecord(server, {
      gatewayBase: opts.gatewayBase,
      link: await opts.credentials.link(server.metadata.uid ?? '', userId),
    });

  const checkImage = (image: string | undefined) => {
    if (image === undefined) return;
    const parsed = parseImageReference(image);
    if (isImageProblem(parsed)) throw new ApiError('mcp_server_image_invalid', parsed.message);
  };

  const tags = ['mcp-servers'];
  const common = { tags, organization: true, params: { server_id: ServerId } } as const;
  const admin = { ...common, platformAdmin: 'mcp_server_management_denied' } as const;
  /** Refusals of a server id that is not one of the caller's organization. */
  const denied = ['mcp_server_access_denied'] as const;

  operation(
    router,
    {
      ...admin,
      method: 'post',
      path: '/',
      operationId: 'createMcpServer',
      summary: 'Register an MCP server (managed or remote)',
      serviceBody: CreateServerSchema,
      responses: { 200: { description: 'The server.', schema: ServerRecordSchema } },
      errors: [
        'mcp_server_image_invalid',
        'mcp_server_address_invalid',
        'organization_not_provisioned',
        'mcp_server_name_conflict',
        'mcp_server_environment_not_stored',
      ],
    },
    async (req, res) => {
      const body = parseCreateServer(req.body);
      const s = scope(req, res);
      if (body.runtime === 'managed') checkImage(body.image);
      else await opts.checkAddress(body.address);
      if (s.namespace === undefined) throw notProvisioned(s.organizationId);
      if (body.runtime === 'managed') {
        await opts.workloads.check(s.namespace, body.name, specOf(body));
      }
      const created = await opts.servers.create({
        namespace: s.namespace,
        organizationId: s.organizationId,
        body,
      });
      res.json(await record(created, s.userId));
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/',
      operationId: 'listMcpServers',
      summary: 'The MCP servers of the caller’s organization',
      responses: { 200: { description: 'The servers, by name.', schema: ServerListSchema } },
    },
    async (req, res) => {
      const s = scope(req, res);
      const servers = s.namespace === undefined ? [] : opts.servers.list(s.namespace);
      servers.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
      const links = await opts.credentials.links(
        servers.map((x) => x.metadata.uid ?? ''),
        s.userId,
      );
      const none: CallerLink = { linked: false, lastUsedAt: null };
      res.json({
        servers: servers.map((x) =>
          serverRecord(x, {
            gatewayBase: opts.gatewayBase,
            link: links.get(x.metadata.uid ?? '') ?? none,
          }),
        ),
        count: servers.length,
      });
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'get',
      path: '/:server_id',
      operationId: 'getMcpServer',
      summary: 'One MCP server',
      responses: { 200: { description: 'The server.', schema: ServerRecordSchema } },
      errors: denied,
    },
    async (req, res) => {
      const { server, userId } = await find(req, res);
      res.json(await record(server, userId));
    },
  );

  operation(
    router,
    {
      ...admin,
      method: 'put',
      path: '/:server_id',
      operationId: 'updateMcpServer',
      summary: 'Change an MCP server (partial; its runtime stays)',
      serviceBody: UpdateServerSchema,
      responses: { 200: { description: 'The server.', schema: ServerRecordSchema } },
      errors: [
        ...denied,
        'mcp_server_runtime_mismatch',
        'mcp_server_image_invalid',
        'mcp_server_address_invalid',
        'mcp_server_environment_not_stored',
      ],
    },
    async (req, res) => {
      const { server, userId } = await find(req, res);
      const body = parseUpdateServer(req.body, server.spec.runtime);
      if (body.runtime === 'remote') {
        if (body.address !== undefined) await opts.checkAddress(body.address);
      } else {
        checkImage(body.image);
        // The cluster is asked again only when what it runs changes.
        if (WORKLOAD_FIELDS.some((f) => f in body)) {
          await opts.workloads.check(
            server.metadata.namespace ?? '',
            server.metadata.name ?? '',
            updatedSpec(server.spec, body),
          );
        }
      }
      const updated = await opts.servers.update(server, body);
      res.json(await record(updated, userId));
    },
  );

  operation(
    router,
    {
      ...admin,
      method: 'delete',
      path: '/:server_id',
      operationId: 'deleteMcpServer',
      summary: 'Remove an MCP server (idempotent)',
      responses: { 204: { description: 'Gone (or never this organization’s).' } },
    },
    async (req, res) => {
      const { organizationId } = scope(req, res);
      const id = serverIdParam(req);
      const server =
        id !== undefined ? await findInOrganization(opts, organizationId, id) : undefined;
      // The organization's own records first, even when the server is gone (a retry repairs an
      // earlier failure); they are scoped by organization, so a foreign id touches nothing.
      if (id !== undefined) await opts.forget(id, organizationId);
      if (server) await opts.servers.delete(server);
      // Idempotent: absent (or not this organization's) is already the wanted state.
      res.status(204).end();
    },
  );

  operation(
    router,
    {
      ...admin,
      method: 'get',
      path: '/:server_id/available-tools',
      operationId: 'listMcpServerTools',
      summary: 'Every tool the upstream lists, allowed or not',
      responses: { 200: { description: 'The tools.', schema: AvailableToolsSchema } },
      errors: [
        ...denied,
        'mcp_credential_not_linked',
        'mcp_credential_rejected',
        'mcp_credential_expired',
        'mcp_server_not_ready',
        'mcp_server_unreachable',
      ],
    },
    async (req, res) => {
      const { server, userId } = await find(req, res);
      const tools = await opts.tools.list(server, userId);
      res.json({ tools, count: tools.length });
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'put',
      path: '/:server_id/credential',
      operationId: 'putMcpCredential',
      summary: 'Store the caller’s own static credential for a server',
      body: CredentialBody,
      responses: { 204: { description: 'Stored (encrypted; never returned).' } },
      errors: denied,
    },
    async (req, res, { body }) => {
      const { id, userId, organizationId } = await find(req, res);
      await opts.credentials.put({
        serverId: id,
        userId,
        organizationId,
        kind: 'static',
        value: body.credential,
      });
      res.status(204).end();
    },
  );

  operation(
    router,
    {
      ...common,
      method: 'delete',
      path: '/:server_id/credential',
      operationId: 'deleteMcpCredential',
      summary: 'Remove the caller’s own credential for a server',
      responses: { 204: { description: 'Removed.' } },
      errors: denied,
    },
    async (req, res) => {
      const { id, userId } = await find(req, res);
      await opts.credentials.remove(id, userId);
      res.status(204).end();
    },
  );

  return router;
}
