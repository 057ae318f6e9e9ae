import type { TenantLifecycle } from '@aiplane/crds';
import { httpStatusOf, isNotFound, kubeRequest } from '@aiplane/lib';
import type { KubeConfig } from '@kubernetes/client-node';
import type { NetworkIsolationConfig } from '../../network-policy-config.js';
import { statusEqual } from '../../runtime/index.js';
import { isRefusal, refusalText } from '../refusal.js';
import { MANAGED_BY, namespaceOf, TENANT_LABEL } from './deps.js';
import { type NetworkPolicy, POLICY_NAMES, tenantNetworkPolicies } from './network-policies.js';
import type { StepState } from './plan.js';
import { ownerReference } from './steps.js';

/** What the network-isolation step needs: its configuration and the policies' watch cache. */
export interface NetworkPolicyDeps {
  kc: KubeConfig;
  config: NetworkIsolationConfig;
  /** The stored policy `<namespace>/<name>` as the watch last saw it. */
  cached: (namespace: string, name: string) => NetworkPolicy | undefined;
}

/** Server-side apply as this field manager; `force` takes back fields someone else changed. */
const FIELD_MANAGER = 'aiplane-operator-tenant-isolation';

const path = (namespace: string, name?: string) =>
  `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies${name ? `/${name}` : ''}`;

/** The stored policy carries what we want: same spec, our labels, owned by the tenant. */
function upToDate(stored: NetworkPolicy | undefined, desired: NetworkPolicy): boolean {
  if (!stored) return false;
  const labels = stored.metadata.labels ?? {};
  const owner = desired.metadata.ownerReferences?.[0]?.uid;
  return (
    statusEqual(JSON.parse(JSON.stringify(stored.spec)), desired.spec) &&
    Object.entries(desired.metadata.labels ?? {}).every(([k, v]) => labels[k] === v) &&
    (stored.metadata.ownerReferences ?? []).some((o) => o.uid === owner)
  );
}

/** A refusal by the apiserver, as a failed step: its status, reason and (bounded) words. */
function refused(err: unknown, name: string, namespace: string): StepState | undefined {
  if (!isRefusal(err)) return undefined;
  return {
    state: 'failed',
    reason: httpStatusOf(err) === 403 ? 'NetworkPolicyForbidden' : 'NetworkPolicyInvalid',
    message: `the cluster refused NetworkPolicy ${name} in ${namespace}: ${refusalText(err)}`,
  };
}

/**
 * Tenant network isolation (docs/adr/0014), run once the namespace is ready: writes the
 * ingress and egress NetworkPolicies when they are missing or differ (deleted, edited), and
 * removes ours when isolation is disabled. Answers the namespace's state unchanged when all is
 * in place, so NamespaceReady stays what it was; a refusal fails the namespace step with its
 * own reason. Other errors throw (retried with the queue's backoff).
 */
export async function ensureNetworkPolicies(
  d: NetworkPolicyDeps | undefined,
  tl: TenantLifecycle,
  namespaceStep: StepState,
): Promise<StepState> {
  if (!d || namespaceStep.state !== 'ready') return namespaceStep;
  const namespace = namespaceOf(tl.spec.slug);
  if (!d.config.enabled) {
    for (const name of POLICY_NAMES) {
      if (!d.cached(namespace, name)) continue;
      try {
        await kubeRequest(d.kc, { method: 'DELETE', path: path(namespace, name) });
      } catch (err) {
        if (isNotFound(err)) continue;
        const failed = refused(err, name, namespace);
        if (failed) return failed;
        throw err;
      }
    }
    return namespaceStep;
  }
  const desired = tenantNetworkPolicies(d.config, {
    namespace,
    labels: { ...MANAGED_BY, [TENANT_LABEL]: tl.spec.slug },
    owner: ownerReference(tl),
  });
  for (const policy of desired) {
    const name = policy.metadata.name ?? '';
    if (upToDate(d.cached(namespace, name), policy)) continue;
    try {
      await kubeRequest(d.kc, {
        method: 'PATCH',
        path: path(namespace, name),
        query: { fieldManager: FIELD_MANAGER, force: true },
        contentType: 'application/apply-patch+yaml',
        body: policy,
      });
    } catch (err) {
      const failed = refused(err, name, namespace);
      if (failed) return failed;
      throw err;
    }
  }
  return namespaceStep;
}
