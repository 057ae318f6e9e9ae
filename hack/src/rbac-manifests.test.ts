import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { COMPONENT_RULES, rbacTemplates } from './rbac-manifests.js';

describe('chart ClusterRoles', () => {
  for (const t of rbacTemplates()) {
    it(`keeps ${t.path} equal to the rules declared next to the code (make crds)`, () => {
      assert.equal(readFileSync(join(repoRoot, t.path), 'utf8'), t.content);
    });
  }

  it('names and labels every RBAC object with the chart’s helpers, as its other templates do', () => {
    for (const t of rbacTemplates()) {
      const component = /-(\w+)\.yaml$/.exec(t.path)?.[1] ?? '';
      const args = `\\(dict "root" \\$ "component" "${component}"\\)`;
      assert.doesNotMatch(t.content, /\.Release\.Name\b/, t.path);
      for (const doc of t.content.split('\n---\n')) {
        assert.match(
          doc,
          new RegExp(`\n  name: '\\{\\{ include "aiplane\\.name" ${args} \\}\\}'\n`),
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

  it('grants no component a wildcard, RBAC objects, or secrets outside what it declared', () => {
    for (const [component, rules] of Object.entries(COMPONENT_RULES)) {
      for (const r of rules) {
        assert.ok(!r.verbs.includes('*') && !r.resources.includes('*'), `${component}: wildcard`);
        assert.ok(!r.apiGroups.includes('rbac.authorization.k8s.io'), `${component}: RBAC`);
      }
    }
    const gatewaySecrets = COMPONENT_RULES.gateway.some((r) => r.resources.includes('secrets'));
    assert.equal(gatewaySecrets, false, 'the gateway reads no Secret');
  });
});
