import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import {
  API_VERSION,
  GROUP,
  mcpDeployment,
  MCP_SERVER_KIND,
  MCP_SERVER_PLURAL,
  metaTime,
  VERSION,
  type McpServer,
  type McpServerSpec,
} from '@aiplane/crds';
import { httpStatusOf, isConflict, isNotFound, kubeRequest, type Logger } from '@aiplane/lib';
import { ApiError } from '../errors/api-error.js';
import type { ResourceCache } from '../kube/resource-cache.js';
import type { CreateServerBody, UpdateServerBody } from './server-body.js';
import {
  ENV_NAMES_ANNOTATION,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  newServerObject,
  ORGANIZATION_LABEL,
  SERVER_LABEL,
  specOf,
  UPDATED_AT_ANNOTATION,
  updatedSpec,
} from './server-resource.js';

const serversPath = (ns: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${MCP_SERVER_PLURAL}`;
const secretsPath = (ns: string) => `/api/v1/namespaces/${ns}/secrets`;
const UPDATE_ATTEMPTS = 5;

type Env = Record<string, string>;

/**
 * McpServer resources and their environment Secrets. Writes answer from the apiserver's reply
 * and are remembered by the cache (read-your-writes); reads come from the watch cache.
 *
 * The environment lives in a Secret of its own, written BEFORE the resource that names it:
 * when the Secret cannot be written nothing else is (503 mcp_server_environment_not_stored),
 * and when the resource cannot be written the new Secret is removed again. A changed
 * environment is a new Secret swapped in with the resource update, so a failed update leaves
 * the old environment in place and the workload rolls out on the new one.
 */
export class McpServerStore {
  constructor(
    private readonly kc: KubeConfig,
    private readonly cache: ResourceCache<McpServer>,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Live servers of a namespace (those being deleted are gone for the API). */
  list(namespace: string): McpServer[] {
    return this.cache.list(namespace).filter((s) => !deleting(s));
  }

  async find(namespace: string, id: string): Promise<McpServer | undefined> {
    const s = await this.cache.byUid(id, namespace);
    return s && !deleting(s) ? s : undefined;
  }

  async create(opts: {
    namespace: string;
    organizationId: string;
    body: CreateServerBody;
  }): Promise<McpServer> {
    const { namespace, body } = opts;
    const env = body.runtime === 'managed' ? (body.env ?? {}) : {};
    const secret = await this.writeEnv(namespace, body.name, env);
    const spec: McpServerSpec = {
      ...specOf(body),
      ...(secret ? { envSecretRef: { name: secret } } : {}),
    };
    const writtenAt = this.clock();
    let created: McpServer;
    try {
      created = await kubeRequest<McpServer>(this.kc, {
        method: 'POST',
        path: serversPath(namespace),
        body: newServerObject({
          name: body.name,
          namespace,
          organizationId: opts.organizationId,
          spec,
          envNames: Object.keys(env).sort(),
          now: writtenAt,
        }),
      });
    } catch (err) {
      // An answer other than a refusal (timeout, 5xx) leaves the outcome unknown: the
      // resource may exist and use the Secret, which then must stay.
      const stored = refused(err)
        ? undefined
        : await this.written(namespace, body.name, writtenAt.toISOString());
      if (stored) {
        this.cache.remember(stored);
        if (secret) await this.adoptSecret(stored, secret);
        return stored;
      }
      if (secret) await this.removeSecret(namespace, secret);
      if (httpStatusOf(err) === 409) {
        throw new ApiError(
          'mcp_server_name_conflict',
          `another MCP server of the organization is named ${body.name} (or is still being deleted)`,
        );
      }
      if (isNotFound(err)) throw notProvisioned(opts.organizationId);
      throw err;
    }
    this.cache.remember(created);
    if (secret) await this.adoptSecret(created, secret);
    return created;
  }

  /** Applies an update to the current resource; retries on a concurrent write. */
  async update(server: McpServer, body: UpdateServerBody): Promise<McpServer> {
    const namespace = server.metadata.namespace ?? '';
    const name = server.metadata.name ?? '';
    const env = body.runtime === 'managed' ? body.env : undefined;
    // null and omitted keep the stored environment; {} clears it; entries replace it.
    const replaceEnv = env !== undefined && env !== null;
    const newSecret = replaceEnv ? await this.writeEnv(namespace, name, env) : undefined;
    let oldSecret: string | undefined;
    let updated: McpServer | undefined;
    let writtenAt = '';
    try {
      for (let attempt = 1; updated === undefined; attempt++) {
        const current = await kubeRequest<McpServer>(this.kc, {
          method: 'GET',
          path: `${serversPath(namespace)}/${name}`,
        });
        if (current.metadata.uid !== server.metadata.uid || deleting(current)) {
          throw new ApiError('mcp_server_access_denied', ACCESS_DENIED_MESSAGE);
        }
        const spec = updatedSpec(current.spec, body);
        writtenAt = this.clock().toISOString();
        const annotations: Record<string, string> = {
          ...current.metadata.annotations,
          [UPDATED_AT_ANNOTATION]: writtenAt,
        };
        if (replaceEnv) {
          oldSecret = current.spec.envSecretRef?.name;
          delete spec.envSecretRef;
          if (newSecret) spec.envSecretRef = { name: newSecret };
          annotations[ENV_NAMES_ANNOTATION] = Object.keys(env).sort().join(',');
        }
        try {
          updated = await kubeRequest<McpServer>(this.kc, {
            method: 'PUT',
            path: `${serversPath(namespace)}/${name}`,
            body: { ...current, metadata: { ...current.metadata, annotations }, spec },
          });
        } catch (err) {
          if (!isConflict(err) || attempt >= UPDATE_ATTEMPTS) throw err;
        }
      }
    } catch (err) {
      const stored = refused(err) ? undefined : await this.written(namespace, name, writtenAt);
      if (stored) updated = stored;
      else {
        if (newSecret) await this.removeSecret(namespace, newSecret);
        if (isNotFound(err)) throw new ApiError('mcp_server_access_denied', ACCESS_DENIED_MESSAGE);
        throw err;
      }
    }
    this.cache.remember(updated);
    if (oldSecret && oldSecret !== newSecret) await this.removeSecret(namespace, oldSecret);
    if (newSecret) await this.adoptSecret(updated, newSecret);
    return updated;
  }

  /** Deletes the resource and its environment Secret; absent is fine. */
  async delete(server: McpServer): Promise<void> {
    const namespace = server.metadata.namespace ?? '';
    try {
      const after = await kubeRequest<McpServer | { kind: string }>(this.kc, {
        method: 'DELETE',
        path: `${serversPath(namespace)}/${server.metadata.name ?? ''}`,
        body: { preconditions: { uid: server.metadata.uid } },
      });
      const gone = after.kind !== MCP_SERVER_KIND;
      this.cache.remember(gone ? server : (after as McpServer), gone);
    } catch (err) {
      // 404: already gone; 409: the uid precondition failed, so this server is gone too.
      if (!isNotFound(err) && !isConflict(err)) throw err;
      this.cache.remember(server, true);
    }
    const secret = server.spec.envSecretRef?.name;
    if (secret) await this.removeSecret(namespace, secret);
  }

  /**
   * Asks the cluster whether it would run this server's Deployment (a server-side dry-run:
   * admission policies, Pod Security, image rules of the namespace), before anything is
   * written. A refusal is 400 mcp_server_image_invalid with the cluster's reason.
   */
  async checkWorkload(namespace: string, name: string, spec: McpServerSpec): Promise<void> {
    const deployment = mcpDeployment(
      { apiVersion: API_VERSION, kind: MCP_SERVER_KIND, metadata: { name, namespace }, spec },
      { envChecksum: 'dry-run' },
    );
    // No owner (the server may not exist yet) and a generated name, so a dry-run never
    // collides with the server's own objects.
    const metadata = {
      labels: deployment.metadata?.labels,
      generateName: 'mcp-dry-run-',
    };
    const template = deployment.spec?.template;
    // The Deployment, for the policies on workloads; its Pod template as a Pod, since Pod
    // Security admission enforces on Pods only (it merely warns about Deployments).
    await this.dryRun(namespace, `/apis/apps/v1/namespaces/${namespace}/deployments`, {
      ...deployment,
      metadata,
    });
    await this.dryRun(namespace, `/api/v1/namespaces/${namespace}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { ...metadata, labels: template?.metadata?.labels },
      spec: template?.spec,
    });
  }

  private async dryRun(namespace: string, path: string, body: unknown): Promise<void> {
    try {
      await kubeRequest(this.kc, { method: 'POST', path, query: { dryRun: 'All' }, body });
    } catch (err) {
      const status = httpStatusOf(err);
      const message = clusterMessage(err);
      // RBAC refusing the API itself is our misconfiguration, not the server's: a 500 (logged).
      if (status === 403 && / cannot create resource /.test(message)) throw err;
      if (status === 400 || status === 403 || status === 422) {
        throw new ApiError(
          'mcp_server_image_invalid',
          `the cluster refuses to run this server: ${message}`,
        );
      }
      if (isNotFound(err)) {
        throw new ApiError(
          'organization_not_provisioned',
          `the organization's tenant namespace ${namespace} does not exist (any more)`,
        );
      }
      throw err;
    }
  }

  /**
   * After a write whose outcome is unknown: the server as stored when it carries this write's
   * `updated-at` stamp (so the write happened), otherwise undefined.
   */
  private async written(
    namespace: string,
    name: string,
    writtenAt: string,
  ): Promise<McpServer | undefined> {
    if (writtenAt === '') return undefined;
    try {
      const s = await kubeRequest<McpServer>(this.kc, {
        method: 'GET',
        path: `${serversPath(namespace)}/${name}`,
      });
      return s.metadata.annotations?.[UPDATED_AT_ANNOTATION] === writtenAt ? s : undefined;
    } catch {
      return undefined;
    }
  }

  /** Creates the environment Secret; undefined for an empty environment. */
  private async writeEnv(namespace: string, server: string, env: Env): Promise<string | undefined> {
    if (Object.keys(env).length === 0) return undefined;
    const secret: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        generateName: `mcp-${server}-env-`,
        labels: { [SERVER_LABEL]: server, [MANAGED_BY_LABEL]: MANAGED_BY },
      },
      type: 'Opaque',
      stringData: env,
    };
    try {
      const created = await kubeRequest<V1Secret>(this.kc, {
        method: 'POST',
        path: secretsPath(namespace),
        body: secret,
      });
      return created.metadata?.name;
    } catch (err) {
      // The apiserver's message may quote the request; log the status and reason only.
      this.logger.warn(
        { namespace, server, status: httpStatusOf(err) },
        'could not write an MCP server environment Secret',
      );
      throw new ApiError(
        'mcp_server_environment_not_stored',
        'the environment could not be stored; nothing was changed, retry later',
      );
    }
  }

  /** Makes the Secret owned by its server, so Kubernetes removes it with the server. */
  private async adoptSecret(server: McpServer, secret: string): Promise<void> {
    const namespace = server.metadata.namespace ?? '';
    try {
      await kubeRequest(this.kc, {
        method: 'PATCH',
        path: `${secretsPath(namespace)}/${secret}`,
        contentType: 'application/merge-patch+json',
        body: {
          metadata: {
            labels: { [ORGANIZATION_LABEL]: server.metadata.labels?.[ORGANIZATION_LABEL] ?? '' },
            ownerReferences: [
              {
                apiVersion: server.apiVersion,
                kind: MCP_SERVER_KIND,
                name: server.metadata.name,
                uid: server.metadata.uid,
              },
            ],
          },
        },
      });
    } catch (err) {
      // The server works without it; deleting the server through the API removes the Secret.
      this.logger.warn(
        { namespace, secret, status: httpStatusOf(err) },
        'could not set the owner of an MCP server environment Secret',
      );
    }
  }

  private async removeSecret(namespace: string, name: string): Promise<void> {
    try {
      await kubeRequest(this.kc, { method: 'DELETE', path: `${secretsPath(namespace)}/${name}` });
    } catch (err) {
      if (isNotFound(err)) return;
      this.logger.warn(
        { namespace, secret: name, status: httpStatusOf(err) },
        'could not remove an MCP server environment Secret',
      );
    }
  }
}

/** The one message of a refused server id: identical for absent and foreign servers. */
export const ACCESS_DENIED_MESSAGE = 'no MCP server with this id is available to you';

export function notProvisioned(organizationId: string): ApiError {
  return new ApiError(
    'organization_not_provisioned',
    `organization ${organizationId} has no provisioned tenant; create one under /v1/admin/tenants first`,
  );
}

/** The apiserver's own explanation of a refusal (a Status message), bounded. */
function clusterMessage(err: unknown): string {
  const body = (err as { body?: unknown }).body;
  const message =
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { message?: unknown }).message === 'string'
      ? (body as { message: string }).message
      : 'refused';
  return message.slice(0, 500);
}

/** The apiserver refused the write (a 4xx): it certainly did not happen. */
function refused(err: unknown): boolean {
  const status = httpStatusOf(err);
  return status !== undefined && status >= 400 && status < 500;
}

function deleting(s: McpServer): boolean {
  return metaTime(s.metadata, 'deletionTimestamp') !== undefined;
}
