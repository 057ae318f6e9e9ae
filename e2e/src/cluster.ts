import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import {
  GROUP,
  MCP_SERVER_PLURAL,
  TENANT_LIFECYCLE_PLURAL,
  VERSION,
  type McpServer,
} from '@aiplane/crds';
import { httpStatusOf, kubeRequest } from '@aiplane/lib';
import type { SecretSpec } from './platform-secrets.js';

/** The label the API puts on every McpServer: its organization. */
export const ORGANIZATION_LABEL = 'aiplane.io/organization-id';

/** Reads of the kind cluster through the Kubernetes API (client-node), never through a shell. */
export class Cluster {
  readonly kc: KubeConfig;
  private readonly core: CoreV1Api;

  constructor(kubeconfig: string) {
    this.kc = new KubeConfig();
    this.kc.loadFromFile(kubeconfig);
    this.core = this.kc.makeApiClient(CoreV1Api);
  }

  currentContext(): string {
    return this.kc.getCurrentContext();
  }

  /** The namespace's phase, or null when it does not exist. */
  async namespacePhase(name: string): Promise<string | null> {
    try {
      const ns = await this.core.readNamespace({ name });
      return ns.status?.phase ?? 'Unknown';
    } catch (err) {
      if (httpStatusOf(err) === 404) return null;
      throw err;
    }
  }

  async namespaceLabels(name: string): Promise<Record<string, string>> {
    return (await this.core.readNamespace({ name })).metadata?.labels ?? {};
  }

  async createNamespace(name: string): Promise<void> {
    await this.core.createNamespace({ body: { metadata: { name } } });
  }

  /** Creates each Secret; its values go over the API, never on a command line. */
  async createSecrets(namespace: string, specs: SecretSpec[]): Promise<void> {
    for (const s of specs) {
      await this.core.createNamespacedSecret({
        namespace,
        body: { metadata: { name: s.name }, type: 'Opaque', stringData: s.stringData },
      });
    }
  }

  /** The keys of a Secret (never its values), or null when it does not exist. */
  async secretKeys(namespace: string, name: string): Promise<string[] | null> {
    try {
      const secret = await this.core.readNamespacedSecret({ namespace, name });
      return Object.keys(secret.data ?? {}).sort();
    } catch (err) {
      if (httpStatusOf(err) === 404) return null;
      throw err;
    }
  }

  async podNames(namespace: string): Promise<string[]> {
    const pods = await this.core.listNamespacedPod({ namespace });
    return pods.items.map((p) => p.metadata?.name ?? '').filter((n) => n !== '');
  }

  async tenantLifecycleExists(name: string): Promise<boolean> {
    try {
      await kubeRequest(this.kc, {
        method: 'GET',
        path: `/apis/${GROUP}/${VERSION}/${TENANT_LIFECYCLE_PLURAL}/${name}`,
      });
      return true;
    } catch (err) {
      if (httpStatusOf(err) === 404) return false;
      throw err;
    }
  }

  /** `<namespace>/<name>` of every McpServer in `namespace` or labelled with `organizationId`. */
  async mcpServersOf(namespace: string, organizationId: string): Promise<string[]> {
    const list = await kubeRequest<{ items: McpServer[] }>(this.kc, {
      method: 'GET',
      path: `/apis/${GROUP}/${VERSION}/${MCP_SERVER_PLURAL}`,
    });
    return list.items
      .filter(
        (s) =>
          s.metadata.namespace === namespace ||
          s.metadata.labels?.[ORGANIZATION_LABEL] === organizationId,
      )
      .map((s) => `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`)
      .sort();
  }
}
