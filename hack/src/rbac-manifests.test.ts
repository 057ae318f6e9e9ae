import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import type { PolicyRule } from '@aiplane/lib';
import { TENANT_CLUSTER_ROLES } from '@aiplane/operator';
import {
  COMPONENT_NAMESPACE_RULES,
  COMPONENT_RULES,
  COMPONENT_TENANT_RULES,
  rbacTemplates,
  tenantClusterRole,
} from './rbac-manifests.js';

/** One line per rule: `group resource[names]: verbs` (core group as `core`). */
const table = (rules: readonly PolicyRule[] | undefined) =>
  (rules ?? []).map(
    (r) =>
      `${r.apiGroups.join(',') || 'core'} ${r.resources.join(',')}${r.resourceNames ? `[${r.resourceNames.join(',')}]` : ''}: ${r.verbs.join(',')}`,
  );

describe('chart ClusterRoles', () => {
  for (const t of rbacTemplates()) {
    it(`keeps ${t.path} equal to the rules declared next to the code (make crds)`, () => {
      assert.equal(readFileSync(join(repoRoot, t.path), 'utf8'), t.content);
    });
  }

  it('grants each component exactly the expected rules, cluster-wide, in tenant namespaces and in the release namespace', () => {
    assert.deepEqual(
      {
        cluster: Object.fromEntries(Object.entries(COMPONENT_RULES).map(([c, r]) => [c, table(r)])),
        tenant: Object.fromEntries(
          Object.entries(COMPONENT_TENANT_RULES).map(([c, r]) => [c, table(r)]),
        ),
        release: Object.fromEntries(
          Object.entries(COMPONENT_NAMESPACE_RULES).map(([c, r]) => [c, table(r)]),
        ),
      },
      {
        cluster: {
          operator: [
            'core events: create,patch',
            'core namespaces: create,delete,get,list,patch,update,watch',
            'core services: create,get,list,patch,update,watch',
            'aiplane.io mcpservers: get,list,patch,watch',
            'aiplane.io mcpservers/finalizers: update',
            'aiplane.io mcpservers/status: get,patch,update',
            'aiplane.io tenantlifecycles: get,list,patch,update,watch',
            'aiplane.io tenantlifecycles/finalizers: update',
            'aiplane.io tenantlifecycles/status: get,patch,update',
            'apps deployments: create,get,list,patch,update,watch',
            'events.k8s.io events: create,patch',
            'networking.k8s.io networkpolicies: create,delete,get,list,patch,watch',
            'rbac.authorization.k8s.io clusterroles[<release>-api-tenant,<release>-operator-tenant]: bind',
            'rbac.authorization.k8s.io rolebindings: create',
            'rbac.authorization.k8s.io rolebindings[<release>-api-tenant,<release>-operator-tenant]: delete,get,update',
          ],
          // No Secret, Pod or Deployment anywhere: those are tenant-namespace rules.
          api: [
            'aiplane.io mcpservers: list,watch',
            'aiplane.io tenantlifecycles: create,delete,get,list,watch',
          ],
          gateway: [
            'aiplane.io mcpservers: get,list,watch',
            'aiplane.io tenantlifecycles: get,list,watch',
          ],
        },
        tenant: {
          api: [
            'core pods: create',
            'core secrets: create,delete,patch',
            'aiplane.io mcpservers: create,delete,get,update',
            'apps deployments: create',
          ],
          operator: ['core secrets: create,get,update'],
        },
        release: { operator: ['coordination.k8s.io leases: create,get,update'] },
      },
    );
  });

  it('lets the operator bind exactly the tenant ClusterRoles the chart creates', () => {
    assert.deepEqual(
      [...TENANT_CLUSTER_ROLES].sort(),
      Object.keys(COMPONENT_TENANT_RULES).map(tenantClusterRole).sort(),
    );
  });

  it('names and labels every RBAC object with the chart’s helpers, as its other templates do', () => {
    for (const t of rbacTemplates()) {
      // clusterrole-api.yaml, role-operator.yaml, clusterrole-api-tenant.yaml (`<release>-api-tenant`).
      const [, component = '', tenant = ''] = /-(\w+)(-tenant)?\.yaml$/.exec(t.path) ?? [];
      const args = `\\(dict "root" \\$ "component" "${component}"\\)`;
      const nameArgs = `\\(dict "root" \\$ "component" "${component}${tenant}"\\)`;
      assert.doesNotMatch(t.content, /\.Release\.Name\b/, t.path);
      for (const doc of t.content.split('\n---\n')) {
        assert.match(
          doc,
          new RegExp(`\n  name: '\\{\\{ include "aiplane\\.name" ${nameArgs} \\}\\}'\n`),
        );
        assert.match(
          doc,
          new RegExp(
            `\n  labels:\n    \\{\\{- include "aiplane\\.labels" ${args} \\| nindent 4 \\}\\}\n`,
          ),
        );
      }
    }
  });

  it('grants no wildcard, no RBAC objects but the operator’s tenant RoleBindings, and Secrets in tenant namespaces only', () => {
    const all = [COMPONENT_RULES, COMPONENT_TENANT_RULES, COMPONENT_NAMESPACE_RULES].flatMap((m) =>
      Object.entries(m).flatMap(([c, rules]) => (rules ?? []).map((r) => [c, r] as const)),
    );
    for (const [component, r] of all) {
      assert.ok(!r.verbs.includes('*') && !r.resources.includes('*'), `${component}: wildcard`);
      if (!r.apiGroups.includes('rbac.authorization.k8s.io')) continue;
      assert.equal(component, 'operator', `${component}: RBAC`);
      // `bind` (and any escalate) only on named ClusterRoles, never on every role.
      assert.ok(!r.verbs.includes('escalate'), 'escalate');
      if (r.verbs.includes('bind')) assert.ok((r.resourceNames ?? []).length > 0, 'bind by name');
    }
    for (const [component, rules] of Object.entries(COMPONENT_RULES)) {
      const secrets = rules.some((r) => r.resources.includes('secrets'));
      assert.equal(secrets, false, `${component} has no cluster-wide Secret access`);
    }
    const watched = all.some(
      ([, r]) =>
        r.resources.includes('secrets') && r.verbs.some((v) => v === 'list' || v === 'watch'),
    );
    assert.equal(watched, false, 'no component lists or watches Secrets');
  });
});
