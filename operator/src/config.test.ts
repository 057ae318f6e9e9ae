import assert from 'node:assert/strict';
import { ConfigError, loadOperatorConfig } from './config.js';

const base = { AIPLANE_OPERATOR_LEADER_ELECTION: 'false' };

describe('operator configuration: tenant RoleBindings', () => {
  it('binds nothing when AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS is unset', () => {
    assert.deepEqual(loadOperatorConfig(base).tenants.roleBindings, []);
  });

  it('reads <clusterRole>=<namespace>/<serviceAccount> entries, comma-separated', () => {
    const config = loadOperatorConfig({
      ...base,
      AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS:
        'r-api-tenant=aiplane/r-api, r-operator-tenant=aiplane/r-operator',
    });
    assert.deepEqual(config.tenants.roleBindings, [
      { clusterRole: 'r-api-tenant', serviceAccount: { namespace: 'aiplane', name: 'r-api' } },
      {
        clusterRole: 'r-operator-tenant',
        serviceAccount: { namespace: 'aiplane', name: 'r-operator' },
      },
    ]);
  });

  for (const bad of ['r-api-tenant', 'r=ns', 'r=ns/', 'R=ns/sa', 'r=ns/sa,r=ns/other']) {
    it(`refuses "${bad}" naming the variable`, () => {
      assert.throws(
        () => loadOperatorConfig({ ...base, AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS: bad }),
        (err: unknown) =>
          err instanceof ConfigError && /AIPLANE_OPERATOR_TENANT_ROLE_BINDINGS/.test(err.message),
      );
    });
  }
});
