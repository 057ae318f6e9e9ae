import assert from 'node:assert/strict';
import { checkContext, E2eConfigError, KIND_CONTEXT, loadE2eConfig } from './config.js';

const binaries = () => ({ kubectl: '/cache/kube/kubectl', helm: '/cache/helm/helm' });
const now = () => new Date('2026-01-02T03:04:05.678Z');

describe('e2e configuration', function () {
  it('refuses to run without KUBECONFIG rather than use a default cluster', function () {
    assert.throws(() => loadE2eConfig({}, { binaries }), E2eConfigError);
    assert.throws(() => loadE2eConfig({ KUBECONFIG: '' }, { binaries }), /run-kind\.sh/);
  });

  it('refuses a KUBECONFIG list', function () {
    assert.throws(() => loadE2eConfig({ KUBECONFIG: '/a:/b' }, { binaries }), /one file/);
  });

  it('takes kubectl and helm from the cache of make setup by default', function () {
    const c = loadE2eConfig({ KUBECONFIG: '/tmp/kc' }, { binaries, now });
    assert.equal(c.kubectl, '/cache/kube/kubectl');
    assert.equal(c.helm, '/cache/helm/helm');
    assert.equal(c.kubeconfig, '/tmp/kc');
    assert.match(c.artifactsDir, /aiplane-e2e-2026-01-02T03-04-05-678Z$/);
  });

  it('lets KUBECTL, HELM and E2E_ARTIFACTS_DIR override, without building paths it does not need', function () {
    const c = loadE2eConfig(
      {
        KUBECONFIG: '/tmp/kc',
        KUBECTL: '/usr/bin/kubectl',
        HELM: '/usr/bin/helm',
        E2E_ARTIFACTS_DIR: '/out',
      },
      {
        binaries: () => {
          throw new Error('not asked for');
        },
      },
    );
    assert.deepEqual(
      { kubectl: c.kubectl, helm: c.helm, artifactsDir: c.artifactsDir },
      { kubectl: '/usr/bin/kubectl', helm: '/usr/bin/helm', artifactsDir: '/out' },
    );
  });

  it('accepts only the kind cluster context unless told otherwise', function () {
    assert.equal(KIND_CONTEXT, 'kind-aiplane-e2e');
    assert.doesNotThrow(() => checkContext('kind-aiplane-e2e', {}));
    assert.throws(() => checkContext('prod-cluster', {}), /refusing to install into it/);
    assert.doesNotThrow(() => checkContext('prod-cluster', { E2E_ALLOW_ANY_CONTEXT: '1' }));
  });
});
