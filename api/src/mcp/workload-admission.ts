import type { KubeConfig } from '@kubernetes/client-node';
import { API_VERSION, mcpDeployment, MCP_SERVER_KIND, type McpServerSpec } from '@aiplane/crds';
import { httpStatusOf, isNotFound, kubeRequest, refusalMessage } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';

/** Whether the cluster would run a managed server's workload, asked before anything is written. */
export class WorkloadAdmission {
  constructor(private readonly kc: KubeConfig) {}

  /**
   * Asks the cluster whether it would run this server's Deployment (a server-side dry-run:
   * admission policies, Pod Security, image rules of the namespace), before anything is
   * written. A refusal is 400 mcp_server_image_invalid with the cluster's reason.
   */
  async check(namespace: string, name: string, spec: McpServerSpec): Promise<void> {
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
      const message = refusalMessage(err) ?? 'refused';
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
}
