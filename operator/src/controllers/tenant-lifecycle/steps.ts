import { KeycloakRequestFailed, KeycloakUnavailable, isNotFound } from '@aiplane/lib';
import type { TenantLifecycle } from '@aiplane/crds';
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import {
  DatabaseOwnedByOther,
  DatabaseUnreachable,
  secretData,
} from '../../providers/database/index.js';
import {
  DATABASE_SECRET,
  MANAGED_BY,
  namespaceOf,
  TENANT_LABEL,
  TENANT_UID_LABEL,
  type TenantControllerDeps,
} from './deps.js';
import type { StepState } from './plan.js';

const ready = (reason: string, message: string): StepState => ({ state: 'ready', reason, message });
const progressing = (reason: string, message: string): StepState => ({
  state: 'progressing',
  reason,
  message,
});
const failed = (reason: string, message: string): StepState => ({
  state: 'failed',
  reason,
  message,
});

export function ownerReference(tl: TenantLifecycle): V1OwnerReference {
  return {
    apiVersion: tl.apiVersion,
    kind: tl.kind,
    name: tl.metadata.name ?? '',
    uid: tl.metadata.uid ?? '',
    controller: true,
  };
}

/** Namespace `tenant-<slug>`, labelled with the tenant and owned by its TenantLifecycle. */
export async function ensureNamespace(
  d: TenantControllerDeps,
  tl: TenantLifecycle,
): Promise<StepState> {
  const name = namespaceOf(tl.spec.slug);
  const uid = tl.metadata.uid ?? '';
  let ns;
  try {
    ns = await d.core.readNamespace({ name });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await d.core.createNamespace({
      body: {
        metadata: {
          name,
          labels: {
            ...MANAGED_BY,
            [TENANT_LABEL]: tl.spec.slug,
            [TENANT_UID_LABEL]: uid,
            // Managed MCP workloads must pass the restricted Pod Security Standard.
            'pod-security.kubernetes.io/enforce': 'restricted',
          },
          ownerReferences: [ownerReference(tl)],
        },
      },
    });
    return ready('NamespaceCreated', `namespace ${name} created`);
  }
  if (ns.metadata?.labels?.[TENANT_UID_LABEL] !== uid) {
    return failed(
      'NamespaceConflict',
      `namespace ${name} exists and was not created for this tenant; remove it or use another slug`,
    );
  }
  if (ns.metadata?.deletionTimestamp) {
    return progressing(
      'NamespaceTerminating',
      `namespace ${name} is being deleted; waiting for it to go`,
    );
  }
  return ready('NamespaceReady', `namespace ${name} is ready`);
}

function identityFailure(err: unknown): StepState {
  if (err instanceof KeycloakUnavailable) {
    return failed(
      'IdentityProviderUnavailable',
      `the identity provider could not be reached: ${err.message}`,
    );
  }
  if (err instanceof KeycloakRequestFailed) {
    return failed(
      'IdentityProviderRefused',
      `${err.message}; check the operator client's permissions`,
    );
  }
  throw err;
}

/**
 * The tenant's organization: alias = slug, looked up before it is created, marked with the
 * tenant uid. One recorded in status but gone is reported missing once (Degraded), then
 * recreated. Existence is decided by the alias search, a database query: Keycloak 26.7 was
 * seen answering GET-by-id from a stale cache entry after a concurrent delete.
 */
export async function ensureOrganization(
  d: TenantControllerDeps,
  tl: TenantLifecycle,
): Promise<StepState & { organizationId?: string }> {
  const orgs = d.organizations;
  if (!orgs)
    return failed(
      'IdentityProviderNotConfigured',
      'the operator has no identity provider configured',
    );
  const uid = tl.metadata.uid ?? '';
  const slug = tl.spec.slug;
  try {
    const existing = await orgs.findByAlias(slug);
    if (existing && existing.tenantUid !== uid) {
      return failed(
        'OrganizationConflict',
        `an organization with alias ${slug} exists and was not created for this tenant; remove it or use another slug`,
      );
    }
    if (existing) {
      try {
        await orgs.ensurePermissionGroups(existing.id);
        return {
          ...ready('OrganizationReady', `organization ${slug} is ready`),
          organizationId: existing.id,
        };
      } catch (err) {
        // Removed between the lookup and the groups: Keycloak answers 400 for the groups of an
        // organization that is gone, or 500 (ModelException) when its cache still held it. If a
        // second lookup no longer finds it, that is a missing organization, not an outage or a
        // refusal; if Keycloak is really down, that lookup fails too and says so.
        if (!(err instanceof KeycloakRequestFailed || err instanceof KeycloakUnavailable))
          throw err;
        if (await orgs.findByAlias(slug)) throw err;
      }
    }
    // Gone after it was recorded: report it (Degraded) and recreate it only once the repair
    // delay has passed since the report, whatever wakes the controller up meanwhile.
    const recorded = tl.status?.organizationId;
    const missing = tl.status?.conditions?.find(
      (c) => c.type === 'IdentityReady' && c.reason === 'OrganizationMissing',
    );
    const reportedAt = missing ? Date.parse(missing.lastTransitionTime) : NaN;
    if (recorded && !(d.now().getTime() - reportedAt >= d.repairDelayMs)) {
      return failed(
        'OrganizationMissing',
        `organization ${recorded} was removed outside aiplane; it will be recreated`,
      );
    }
    const created = await orgs.create({
      alias: slug,
      name: slug,
      description: tl.spec.displayName,
      tenantUid: uid,
    });
    await orgs.ensurePermissionGroups(created.id);
    return {
      ...ready('OrganizationCreated', `organization ${slug} created`),
      organizationId: created.id,
    };
  } catch (err) {
    return identityFailure(err);
  }
}

const decode = (v: string | undefined) =>
  v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');

/**
 * The dedicated database and its Secret. The Secret's password, when there is one, is the
 * password the role gets; otherwise a fresh one is made and written, so a crash between the two
 * never leaves them disagreeing.
 */
export async function ensureDatabase(
  d: TenantControllerDeps,
  tl: TenantLifecycle,
): Promise<StepState & { name?: string; secretName?: string }> {
  if (!d.databases) {
    return failed(
      'DatabaseProvisionerNotConfigured',
      'a dedicated database was requested but the operator has no database cluster configured',
    );
  }
  const namespace = namespaceOf(tl.spec.slug);
  let secret: V1Secret | undefined;
  try {
    secret = await d.core.readNamespacedSecret({ name: DATABASE_SECRET, namespace });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const uid = tl.metadata.uid ?? '';
  if (secret && !(secret.metadata?.ownerReferences ?? []).some((o) => o.uid === uid)) {
    return failed(
      'DatabaseSecretConflict',
      `Secret ${DATABASE_SECRET} in ${namespace} was not created for this tenant; remove it`,
    );
  }
  let creds;
  try {
    creds = await d.databases.ensure({
      slug: tl.spec.slug,
      uid: tl.metadata.uid ?? '',
      password: decode(secret?.data?.password),
    });
  } catch (err) {
    if (err instanceof DatabaseUnreachable) {
      return failed(
        'DatabaseUnreachable',
        `the database cluster could not be reached: ${err.message}`,
      );
    }
    if (err instanceof DatabaseOwnedByOther) return failed('DatabaseConflict', err.message);
    throw err;
  }
  const data = Object.fromEntries(
    Object.entries(secretData(creds)).map(([k, v]: [string, string]) => [
      k,
      Buffer.from(v, 'utf8').toString('base64'),
    ]),
  );
  const same = secret && Object.keys(data).every((k) => secret?.data?.[k] === data[k]);
  if (!same) {
    const body: V1Secret = {
      metadata: {
        name: DATABASE_SECRET,
        namespace,
        labels: { ...MANAGED_BY, [TENANT_LABEL]: tl.spec.slug },
        ownerReferences: [ownerReference(tl)],
        ...(secret?.metadata?.resourceVersion
          ? { resourceVersion: secret.metadata.resourceVersion }
          : {}),
      },
      type: 'Opaque',
      data,
    };
    if (secret) await d.core.replaceNamespacedSecret({ name: DATABASE_SECRET, namespace, body });
    else await d.core.createNamespacedSecret({ namespace, body });
  }
  return {
    ...ready(
      secret ? 'DatabaseReady' : 'DatabaseProvisioned',
      `database ${creds.database} is ready; credentials in Secret ${DATABASE_SECRET}`,
    ),
    name: creds.database,
    secretName: DATABASE_SECRET,
  };
}
