import assert from 'node:assert/strict';
import type { V1RoleBinding } from '@kubernetes/client-node';
import { roleBindingAction, tenantRoleBinding } from './access.js';

const api = {
  clusterRole: 'rel-api-tenant',
  serviceAccount: { namespace: 'aiplane', name: 'rel-api' },
};

describe('tenant access RoleBindings', () => {
  it('binds the ClusterRole to the ServiceAccount in the tenant namespace only, named after the role', () => {
    assert.deepEqual(tenantRoleBinding('tenant-acme', 'acme', api), {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {
        name: 'rel-api-tenant',
        namespace: 'tenant-acme',
        labels: { 'app.kubernetes.io/managed-by': 'aiplane-operator', 'aiplane.io/tenant': 'acme' },
      },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'rel-api-tenant',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'rel-api', namespace: 'aiplane' }],
    });
  });

  const desired = tenantRoleBinding('tenant-acme', 'acme', api);
  const stored = (change: (b: V1RoleBinding) => void): V1RoleBinding => {
    const b = structuredClone(desired);
    b.metadata = { ...b.metadata, resourceVersion: '7', uid: 'u' };
    change(b);
    return b;
  };
  const cases: [string, V1RoleBinding | undefined, ReturnType<typeof roleBindingAction>][] = [
    ['creates a missing binding', undefined, 'create'],
    ['leaves an equal binding alone (fields the apiserver adds aside)', stored(() => {}), 'none'],
    [
      'recreates a binding whose roleRef (immutable) points elsewhere',
      stored((b) => (b.roleRef.name = 'cluster-admin')),
      'recreate',
    ],
    [
      'updates a binding with other subjects',
      stored((b) => b.subjects?.push({ kind: 'User', name: 'mallory' })),
      'update',
    ],
    ['updates a binding that lost its labels', stored((b) => delete b.metadata?.labels), 'update'],
  ];
  for (const [title, current, action] of cases) {
    it(title, () => assert.equal(roleBindingAction(current, desired), action));
  }
});
