import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { binaryPaths, repoRoot } from '@aiplane/hack';
import { environment } from './harness.js';

const run = promisify(execFile);
const CHART = join(repoRoot, 'charts', 'aiplane');

async function helm(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(binaryPaths().helm, args, {
    env: {
      ...process.env,
      KUBECONFIG: environment().info().kubeconfig,
      HELM_CACHE_HOME: join(environment().dir, 'helm-cache'),
      HELM_CONFIG_HOME: join(environment().dir, 'helm-config'),
      HELM_DATA_HOME: join(environment().dir, 'helm-data'),
    },
    maxBuffer: 16 * 1024 * 1024,
  });
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
  assert.fail('helm accepted it');
}

const kinds = (manifests: string) =>
  parseAllDocuments(manifests)
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
    .filter((o): o is { kind: string; metadata: { name: string } } => !!o?.kind);

describe('Helm chart (helm built from the Go module proxy, the local apiserver)', function () {
  it('passes helm lint', async function () {
    const { stdout } = await helm('lint', CHART, '--strict');
    assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders the CRDs and one ClusterRole per component by default, and every manifest passes a server-side dry-run', async function () {
    const { stdout } = await helm('template', 'aiplane', CHART);
    assert.deepEqual(
      kinds(stdout)
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort(),
      [
        'ClusterRole/aiplane-api',
        'ClusterRole/aiplane-gateway',
        'ClusterRole/aiplane-operator',
        'CustomResourceDefinition/mcpservers.aiplane.io',
        'CustomResourceDefinition/tenantlifecycles.aiplane.io',
      ],
    );
    const apply = run(
      binaryPaths().kubectl,
      [
        'apply',
        '--server-side',
        '--dry-run=server',
        '--force-conflicts',
        '--field-manager=chart-test',
        '-f',
        '-',
      ],
      { env: { ...process.env, KUBECONFIG: environment().info().kubeconfig } },
    );
    apply.child.stdin?.end(stdout);
    const { stdout: applied } = await apply;
    assert.equal(applied.trim().split('\n').length, 5, applied);
    assert.match(applied, /serverside-applied \(server dry run\)/);
  });

  it('leaves the CRDs out with crds.enabled=false and marks them kept with crds.keep', async function () {
    const off = await helm('template', 'aiplane', CHART, '--set', 'crds.enabled=false');
    assert.ok(!kinds(off.stdout).some((o) => o.kind === 'CustomResourceDefinition'));
    const kept = await helm('template', 'aiplane', CHART);
    assert.match(kept.stdout, /helm\.sh\/resource-policy: keep/);
    const notKept = await helm('template', 'aiplane', CHART, '--set', 'crds.keep=false');
    assert.doesNotMatch(notKept.stdout, /resource-policy/);
  });

  it('refuses unknown keys and wrong types with the schema’s message', async function () {
    assert.match(
      await refusal(helm('template', 'aiplane', CHART, '--set', 'replicas=2')),
      /additional properties 'replicas' not allowed/,
    );
    assert.match(
      await refusal(helm('template', 'aiplane', CHART, '--set', 'rbac.create=maybe')),
      /\/rbac\/create'?: got string, want boolean/,
    );
  });

  it('installs into the local control plane and uninstalls cleanly', async function () {
    // The harness installed the CRDs itself (not through Helm), so the release leaves them out.
    await helm(
      'install',
      'it-chart',
      CHART,
      '--namespace',
      'aiplane-chart',
      '--create-namespace',
      '--set',
      'crds.enabled=false',
      '--wait',
      '--timeout',
      '60s',
    );
    const { stdout } = await helm('status', 'it-chart', '--namespace', 'aiplane-chart');
    assert.match(stdout, /STATUS: deployed/);
    await helm('uninstall', 'it-chart', '--namespace', 'aiplane-chart');
    const roles = await run(binaryPaths().kubectl, ['get', 'clusterroles', '-o', 'name'], {
      env: { ...process.env, KUBECONFIG: environment().info().kubeconfig },
    });
    assert.doesNotMatch(roles.stdout, /it-chart-/);
  });
});
