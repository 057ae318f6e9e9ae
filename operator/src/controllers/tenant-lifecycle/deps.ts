import { tenantNamespace } from '@aiplane/crds';
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { TenantRoleBinding } from '../../config.js';
import type { DatabaseProvisioner } from '../../providers/database/index.js';
import type { OrganizationProvider } from '../../providers/identity/index.js';
import type { EventRecorder, StatusMemory } from '../../runtime/index.js';
import type { NetworkPolicyDeps } from './ensure-network-policies.js';

/** Test fault injection: SIGKILL the process right after this stage's side effect. */
export type CrashPoint = 'Namespace' | 'Identity' | 'Database';

export interface TenantControllerDeps {
  kc: KubeConfig;
  core: CoreV1Api;
  /** Absent when no identity provider is configured: tenants wait with a clear condition. */
  organizations?: OrganizationProvider;
  /** Absent when no shared database cluster is configured. */
  databases?: DatabaseProvisioner;
  events: EventRecorder;
  /** What the controller last wrote to each tenant's status (runtime/status-memory.ts). */
  statusMemory?: StatusMemory;
  logger: Logger;
  now: () => Date;
  /** How often a Ready tenant's services are re-checked. */
  healthCheckMs: number;
  /** Pause between finding an organization gone and recreating it (the Degraded window). */
  repairDelayMs: number;
  crashAfter?: { stage: CrashPoint; slug?: string };
  /** ClusterRoles bound to ServiceAccounts in every tenant namespace (access.ts). */
  roleBindings: readonly TenantRoleBinding[];
  /** Tenant network isolation (docs/adr/0014); absent in unit tests of other steps. */
  networkPolicies?: NetworkPolicyDeps;
}

/**
 * How long a tenant waiting on its namespace (being removed by the namespace controller, which
 * waits 5 s before it starts) sleeps before looking again. The namespace watch wakes it as soon
 * as the namespace changes or goes; this only bounds what a missed watch event could hold up.
 */
export const NAMESPACE_RECHECK_MS = 5000;

export const FINALIZER = 'aiplane.io/tenant-cleanup';
export const DATABASE_SECRET = 'tenant-database';
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'aiplane-operator' };
export const TENANT_UID_LABEL = 'aiplane.io/tenant-uid';
export const TENANT_LABEL = 'aiplane.io/tenant';

/** Kept as the controller's name for it; the one definition is in @aiplane/crds. */
export const namespaceOf = tenantNamespace;
