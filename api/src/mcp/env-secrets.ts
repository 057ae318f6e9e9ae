import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { MCP_SERVER_KIND, ORGANIZATION_LABEL, type McpServer } from '@aiplane/crds';
import { httpStatusOf, isNotFound, kubeRequest, type Logger } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import { MANAGED_BY, MANAGED_BY_LABEL, SERVER_LABEL } from './server-resource.js';

const secretsPath = (ns: string) => `/api/v1/namespaces/${ns}/secrets`;

export type Env = Record<string, string>;

/**
 * The environment Secrets of managed MCP servers: written before the resource that names them,
 * owned by it once it exists, removed when a write fails or the environment is replaced. Values
 * are written, never read back.
 */
export class McpEnvSecrets {
  constructor(
    private readonly kc: KubeConfig,
    private readonly logger: Logger,
  ) {}

  /** Creates the environment Secret; undefined for an empty environment. */
  async write(namespace: string, server: string, env: Env): Promise<string | undefined> {
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
  async adopt(server: McpServer, secret: string): Promise<void> {
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

  async remove(namespace: string, name: string): Promise<void> {
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
