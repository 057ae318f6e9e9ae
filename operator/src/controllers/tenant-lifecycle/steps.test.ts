import assert from 'node:assert/strict';
import { KeycloakRequestFailed, KeycloakUnavailable } from '@aiplane/lib';
import type { TenantLifecycle } from '@aiplane/crds';
import type { Organization, OrganizationProvider } from '../../providers/identity/index.js';
import type { TenantControllerDeps } from './deps.js';
import { ensureOrganization } from './steps.js';

const UID = '7d4a1c52-0000-4000-8000-000000000001';
const NOW = new Date('2026-11-26T10:00:00Z');

/**
 * An identity provider that answers from a list of organizations; `removeBeforeGroups` removes
 * the organization between the lookup and its groups, as an administrator racing the operator.
 */
function provider(
  orgs: Organization[],
  removeBeforeGroups = false,
  groupsError: Error = new KeycloakRequestFailed(400, 'identity provider answered 400'),
) {
  const calls: string[] = [];
  const p: OrganizationProvider = {
    findByAlias(alias) {
      calls.push(`find ${alias}`);
      return Promise.resolve(orgs.find((o) => o.alias === alias));
    },
    create(input) {
      calls.push(`create ${input.alias}`);
      const org = { id: `org-${orgs.length + 1}`, ...input };
      orgs.push(org);
      return Promise.resolve(org);
    },
    delete() {
      return Promise.reject(new Error('not used'));
    },
    ensurePermissionGroups(id) {
      calls.push(`groups ${id}`);
      if (removeBeforeGroups && orgs.some((o) => o.id === id)) {
        orgs.splice(
          orgs.findIndex((o) => o.id === id),
          1,
        );
        return Promise.reject(groupsError);
      }
      return Promise.resolve();
    },
  };
  return { p, calls };
}

function tenant(status?: TenantLifecycle['status']): TenantLifecycle {
  return {
    apiVersion: 'aiplane.io/v1alpha1',
    kind: 'TenantLifecycle',
    metadata: { name: 'acme', uid: UID, generation: 1 },
    spec: { slug: 'acme', identity: { enabled: true } },
    ...(status ? { status } : {}),
  };
}

const deps = (organizations: OrganizationProvider) =>
  ({ organizations, now: () => NOW, repairDelayMs: 10_000 }) as unknown as TenantControllerDeps;

const recorded = { phase: 'Ready', organizationId: 'org-1', conditions: [] } as NonNullable<
  TenantLifecycle['status']
>;

describe('the tenant organization step', () => {
  it('reports OrganizationMissing, not a refusal, when the organization goes between its lookup and its groups', async () => {
    const { p, calls } = provider(
      [{ id: 'org-1', alias: 'acme', name: 'acme', tenantUid: UID }],
      true,
    );
    const step = await ensureOrganization(deps(p), tenant(recorded));
    assert.equal(step.state, 'failed');
    assert.equal(step.reason, 'OrganizationMissing');
    assert.deepEqual(calls, ['find acme', 'groups org-1', 'find acme']);
  });

  it('reports OrganizationMissing, not an outage, when Keycloak answers 500 for the groups of an organization removed meanwhile', async () => {
    // Keycloak 26.7 answers 500 (ModelException: Organization does not exist) when its cache
    // still held the organization: seen in CI.
    const { p, calls } = provider(
      [{ id: 'org-1', alias: 'acme', name: 'acme', tenantUid: UID }],
      true,
      new KeycloakUnavailable('identity provider answered 500'),
    );
    const step = await ensureOrganization(deps(p), tenant(recorded));
    assert.equal(step.reason, 'OrganizationMissing');
    assert.deepEqual(calls, ['find acme', 'groups org-1', 'find acme']);
  });

  it('keeps an outage an outage when the organization is still there', async () => {
    const orgs = [{ id: 'org-1', alias: 'acme', name: 'acme', tenantUid: UID }];
    const { p } = provider(orgs);
    p.ensurePermissionGroups = () =>
      Promise.reject(new KeycloakUnavailable('identity provider answered 503'));
    const step = await ensureOrganization(deps(p), tenant(recorded));
    assert.equal(step.reason, 'IdentityProviderUnavailable');
  });

  it('keeps a refusal of the groups of an organization that is still there a refusal', async () => {
    const orgs = [{ id: 'org-1', alias: 'acme', name: 'acme', tenantUid: UID }];
    const { p } = provider(orgs);
    p.ensurePermissionGroups = () =>
      Promise.reject(new KeycloakRequestFailed(403, 'identity provider answered 403'));
    const step = await ensureOrganization(deps(p), tenant(recorded));
    assert.equal(step.state, 'failed');
    assert.equal(step.reason, 'IdentityProviderRefused');
  });

  it('creates the organization of a new tenant, then its groups', async () => {
    const { p, calls } = provider([]);
    const step = await ensureOrganization(deps(p), tenant());
    assert.equal(step.reason, 'OrganizationCreated');
    assert.equal(step.organizationId, 'org-1');
    assert.deepEqual(calls, ['find acme', 'create acme', 'groups org-1']);
  });
});
