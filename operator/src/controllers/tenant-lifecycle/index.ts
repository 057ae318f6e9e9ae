import { CoreV1Api, type V1Namespace } from '@kubernetes/client-node';
import {
  GROUP,
  TENANT_LIFECYCLE_KIND,
  TENANT_LIFECYCLE_PLURAL,
  VERSION,
  type TenantLifecycle,
} from '@aiplane/crds';
import { ResilientInformer } from '@aiplane/lib';
import type { OperatorDeps } from '../../operator.js';
import { KeycloakOrganizations } from '../../providers/identity/index.js';
import { Controller, labelSelector, ownerKeys, StatusMemory } from '../../runtime/index.js';
import type { DatabaseProvisioner } from '../../providers/database/index.js';
import { MANAGED_BY, type TenantControllerDeps } from './deps.js';
import type { NetworkPolicy } from './network-policies.js';
import { reconcileTenant } from './reconcile.js';

/** The TenantLifecycle controller; `databases` is built by the caller (it owns a pool). */
export function tenantLifecycleController(
  deps: OperatorDeps,
  databases?: DatabaseProvisioner,
): Controller<TenantLifecycle> {
  const { kc, config, logger, registry, events } = deps;
  const t = config.tenants;
  const managedBy = labelSelector(MANAGED_BY);
  // Our NetworkPolicies in tenant namespaces: a deleted or edited one wakes its tenant up.
  const policies = new ResilientInformer<NetworkPolicy>({
    kc,
    path: '/apis/networking.k8s.io/v1/networkpolicies',
    labelSelector: managedBy,
    resource: 'networkpolicies',
    logger,
  });
  const statusMemory = new StatusMemory();
  const d: TenantControllerDeps = {
    kc,
    statusMemory,
    core: kc.makeApiClient(CoreV1Api),
    ...(t.identity ? { organizations: new KeycloakOrganizations(t.identity) } : {}),
    ...(databases ? { databases } : {}),
    events,
    logger,
    now: () => new Date(),
    healthCheckMs: t.healthCheckMs,
    repairDelayMs: t.repairDelayMs,
    roleBindings: t.roleBindings,
    ...(t.crashAfter ? { crashAfter: t.crashAfter } : {}),
    networkPolicies: {
      kc,
      config: t.networkIsolation,
      cached: (namespace, name) => policies.get(`${namespace}/${name}`),
    },
  };
  const primary = new ResilientInformer<TenantLifecycle>({
    kc,
    path: `/apis/${GROUP}/${VERSION}/${TENANT_LIFECYCLE_PLURAL}`,
    resource: TENANT_LIFECYCLE_PLURAL,
    logger,
  });
  const namespaces = new ResilientInformer<V1Namespace>({
    kc,
    path: '/api/v1/namespaces',
    labelSelector: managedBy,
    resource: 'namespaces',
    logger,
  });
  const toKeys = ownerKeys({ group: GROUP, kind: TENANT_LIFECYCLE_KIND, namespaced: false });
  return new Controller<TenantLifecycle>({
    name: 'tenantlifecycle',
    primary,
    watches: [
      { informer: namespaces, toKeys },
      { informer: policies, toKeys },
    ],
    statusMemory,
    reconcile: (key, ctx) => reconcileTenant(d, ctx),
    concurrency: 4,
    registry,
    logger,
  });
}
