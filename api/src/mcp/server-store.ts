import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import {
  GROUP,
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

export const MCP_SERVERS_PATH = `/apis/${GROUP}/${VERSION}/${MCP_SERVER_PLURAL}`;
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
          now: this.clock(),
        }),
      });
    } catch (err) {
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
        const annotations: Record<string, string> = {
          ...current.metadata.annotations,
          [UPDATED_AT_ANNOTATION]: this.clock().toISOString(),
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
      if (newSecret) await this.removeSecret(namespace, newSecret);
      if (isNotFound(err)) throw new ApiError('mcp_server_access_denied', ACCESS_DENIED_MESSAGE);
      throw err;
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

function deleting(s: McpServer): boolean {
  return metaTime(s.metadata, 'deletionTimestamp') !== undefined;
}
