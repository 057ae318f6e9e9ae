import { Type } from '@sinclair/typebox';
import { type Request, type Response, Router } from 'express';
import type { McpServer, TenantLifecycle } from '@aiplane/crds';
import { requirePlatformAdmin } from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import type { ResourceCache } from '@aiplane/lib';
import type { CredentialStore } from '@aiplane/lib/store';
import { validator } from '@aiplane/lib/service';
import { isImageProblem, parseImageReference } from './image-reference.js';
import {
  callerScope,
  findCallerServer,
  findInOrganization,
  serverIdParam,
} from './caller-server.js';
import { MANAGED_FIELDS, parseCreateServer, parseUpdateServer } from './server-body.js';
import { serverRecord, type CallerLink } from './server-record.js';
import { specOf, updatedSpec } from './server-resource.js';
import { notProvisioned } from '../tenants/provisioning.js';
import type { McpServerStore } from './server-store.js';
import type { WorkloadAdmission } from './workload-admission.js';
import type { AvailableTools } from './available-tools.js';

const CredentialBody = Type.Object(
  { credential: Type.String({ minLength: 1, maxLength: 4096, pattern: '\\S' }) },
  { additionalProperties: false },
);
const parseCredential = validator(CredentialBody);

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
const adminOnly = requirePlatformAdmin('mcp_server_management_denied');

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

  router.post('/', adminOnly, async (req, res) => {
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
  });

  router.get('/', async (req, res) => {
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
  });

  router.get('/:server_id', async (req, res) => {
    const { server, userId } = await find(req, res);
    res.json(await record(server, userId));
  });

  router.put('/:server_id', adminOnly, async (req, res) => {
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
  });

  router.delete('/:server_id', adminOnly, async (req, res) => {
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
  });

  router.get('/:server_id/available-tools', adminOnly, async (req, res) => {
    const { server, userId } = await find(req, res);
    const tools = await opts.tools.list(server, userId);
    res.json({ tools, count: tools.length });
  });

  router.put('/:server_id/credential', async (req, res) => {
    const { id, userId, organizationId } = await find(req, res);
    const { credential } = parseCredential(req.body);
    await opts.credentials.put({
      serverId: id,
      userId,
      organizationId,
      kind: 'static',
      value: credential,
    });
    res.status(204).end();
  });

  router.delete('/:server_id/credential', async (req, res) => {
    const { id, userId } = await find(req, res);
    await opts.credentials.remove(id, userId);
    res.status(204).end();
  });

  return router;
}
