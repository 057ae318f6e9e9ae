import type { KubeConfig } from '@kubernetes/client-node';
import {
  GROUP,
  MCP_SERVER_KIND,
  MCP_SERVER_PLURAL,
  metaTime,
  VERSION,
  type McpServer,
  type McpServerSpec,
} from '@aiplane/crds';
import {
  httpStatusOf,
  isConflict,
  isNotFound,
  kubeRequest,
  type ResourceCache,
} from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import { serverAccessDenied } from '@aiplane/lib/mcp';
import { notProvisioned } from '../tenants/provisioning.js';
import type { McpEnvSecrets } from './env-secrets.js';
import type { CreateServerBody, UpdateServerBody } from './server-body.js';
import {
  ENV_NAMES_ANNOTATION,
  newServerObject,
  specOf,
  UPDATED_AT_ANNOTATION,
  updatedSpec,
} from './server-resource.js';

const serversPath = (ns: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${MCP_SERVER_PLURAL}`;
const UPDATE_ATTEMPTS = 5;

/**
 * McpServer resources (their environment Secrets through McpEnvSecrets). Writes answer from the apiserver's reply
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
    private readonly env: McpEnvSecrets,
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
    const secret = await this.env.write(namespace, body.name, env);
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
        if (secret) await this.env.adopt(stored, secret);
        return stored;
      }
      if (secret) await this.env.remove(namespace, secret);
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
    if (secret) await this.env.adopt(created, secret);
    return created;
  }

  /** Applies an update to the current resource; retries on a concurrent write. */
  async update(server: McpServer, body: UpdateServerBody): Promise<McpServer> {
    const namespace = server.metadata.namespace ?? '';
    const name = server.metadata.name ?? '';
    const env = body.runtime === 'managed' ? body.env : undefined;
    // null and omitted keep the stored environment; {} clears it; entries replace it.
    const replaceEnv = env !== undefined && env !== null;
    const newSecret = replaceEnv ? await this.env.write(namespace, name, env) : undefined;
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
          throw serverAccessDenied();
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
        if (newSecret) await this.env.remove(namespace, newSecret);
        if (isNotFound(err)) throw serverAccessDenied();
        throw err;
      }
    }
    this.cache.remember(updated);
    if (oldSecret && oldSecret !== newSecret) await this.env.remove(namespace, oldSecret);
    if (newSecret) await this.env.adopt(updated, newSecret);
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
    if (secret) await this.env.remove(namespace, secret);
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
}

/** The apiserver refused the write (a 4xx): it certainly did not happen. */
function refused(err: unknown): boolean {
  const status = httpStatusOf(err);
  return status !== undefined && status >= 400 && status < 500;
}

function deleting(s: McpServer): boolean {
  return metaTime(s.metadata, 'deletionTimestamp') !== undefined;
}
