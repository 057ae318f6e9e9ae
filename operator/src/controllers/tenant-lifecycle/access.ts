import type { TenantLifecycle } from '@aiplane/crds';
import { isNotFound, kubeRequest, refusalMessage } from '@aiplane/lib';
import type { V1RoleBinding } from '@kubernetes/client-node';
import type { TenantRoleBinding } from '../../config.js';
import { isRefusal } from '../refusal.js';
import { MANAGED_BY, namespaceOf, TENANT_LABEL, type TenantControllerDeps } from './deps.js';
import type { StepState } from './plan.js';

const RBAC = 'rbac.authorization.k8s.io';
const bindingsPath = (namespace: string) => `/apis/${RBAC}/v1/namespaces/${namespace}/rolebindings`;

/**
 * The RoleBinding that grants a ServiceAccount a tenant ClusterRole in one tenant namespace,
 * named after the ClusterRole. The namespace's deletion removes it.
 */
export function tenantRoleBinding(
  namespace: string,
  slug: string,
  b: TenantRoleBinding,
): V1RoleBinding {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: {
      name: b.clusterRole,
      namespace,
      labels: { ...MANAGED_BY, [TENANT_LABEL]: slug },
    },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: b.clusterRole },
    subjects: [
      {
        kind: 'ServiceAccount',
        name: b.serviceAccount.name,
        namespace: b.serviceAccount.namespace,
      },
    ],
  };
}

/**
 * What to do to make `current` the `desired` binding: its roleRef cannot change (recreate),
 * its subjects can (update).
 */
export function roleBindingAction(
  current: V1RoleBinding | undefined,
  desired: V1RoleBinding,
): 'create' | 'recreate' | 'update' | 'none' {
  if (!current) return 'create';
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const ref = ({ apiGroup, kind, name }: V1RoleBinding['roleRef']) => ({ apiGroup, kind, name });
  if (!same(ref(current.roleRef), ref(desired.roleRef))) return 'recreate';
  const subject = (s: NonNullable<V1RoleBinding['subjects']>[number]) => ({
    kind: s.kind,
    name: s.name,
    namespace: s.namespace,
  });
  const labelsKept = Object.entries(desired.metadata?.labels ?? {}).every(
    ([k, v]) => current.metadata?.labels?.[k] === v,
  );
  return same((current.subjects ?? []).map(subject), (desired.subjects ?? []).map(subject)) &&
    labelsKept
    ? 'none'
    : 'update';
}

async function ensureRoleBinding(d: TenantControllerDeps, desired: V1RoleBinding): Promise<void> {
  const namespace = desired.metadata?.namespace ?? '';
  const path = `${bindingsPath(namespace)}/${desired.metadata?.name ?? ''}`;
  let current: V1RoleBinding | undefined;
  try {
    current = await kubeRequest<V1RoleBinding>(d.kc, { method: 'GET', path });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const action = roleBindingAction(current, desired);
  if (action === 'none') return;
  if (action === 'update') {
    const metadata = {
      ...current?.metadata,
      labels: { ...current?.metadata?.labels, ...desired.metadata?.labels },
    };
    await kubeRequest(d.kc, { method: 'PUT', path, body: { ...desired, metadata } });
    return;
  }
  if (action === 'recreate') await kubeRequest(d.kc, { method: 'DELETE', path });
  // A 409 (created meanwhile) is a requeue, like any conflict.
  await kubeRequest(d.kc, { method: 'POST', path: bindingsPath(namespace), body: desired });
}

/**
 * Once the namespace is ready: the configured ClusterRoles bound in it (the API's rules in a
 * tenant namespace, the operator's own Secret access there). A refusal by the apiserver (the
 * operator lacks `bind` on the ClusterRole, or the ClusterRole is missing) leaves the namespace
 * not ready, with the apiserver's reason; anything else is retried.
 */
export async function ensureTenantAccess(
  d: TenantControllerDeps,
  tl: TenantLifecycle,
  namespace: StepState,
): Promise<StepState> {
  if (namespace.state !== 'ready') return namespace;
  const name = namespaceOf(tl.spec.slug);
  for (const b of d.roleBindings) {
    try {
      await ensureRoleBinding(d, tenantRoleBinding(name, tl.spec.slug, b));
    } catch (err) {
      if (!isRefusal(err)) throw err;
      return {
        state: 'failed',
        reason: 'TenantAccessRefused',
        message: `cannot bind ClusterRole ${b.clusterRole} to ServiceAccount ${b.serviceAccount.namespace}/${b.serviceAccount.name} in namespace ${name}: ${refusalMessage(err) ?? 'refused'}`,
      };
    }
  }
  return namespace;
}
