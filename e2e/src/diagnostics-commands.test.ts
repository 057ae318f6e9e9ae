import assert from 'node:assert/strict';
import { clusterDiagnostics, podLogCommands } from './diagnostics-commands.js';

describe('diagnostics commands after a failure', function () {
  const commands = clusterDiagnostics({
    systemNamespace: 'aiplane-system',
    release: 'aiplane',
    tenantNamespaces: ['tenant-e2e-1a2b3c'],
  });

  it('gets every object of every namespace, the aiplane resources, events and the release', function () {
    const lines = commands.map((c) => `${c.tool} ${c.args.join(' ')}`);
    assert.ok(lines.includes('kubectl get all --all-namespaces -o wide'));
    assert.ok(lines.includes('kubectl get tenantlifecycles,mcpservers --all-namespaces -o yaml'));
    assert.ok(lines.includes('kubectl get events --all-namespaces --sort-by=.lastTimestamp'));
    assert.ok(lines.includes('helm status aiplane --namespace aiplane-system --show-resources'));
  });

  it('describes the pods and Deployments of the system and the tenant namespaces', function () {
    const lines = commands.map((c) => c.args.join(' '));
    for (const ns of ['aiplane-system', 'tenant-e2e-1a2b3c']) {
      assert.ok(lines.includes(`describe pods --namespace ${ns}`), ns);
      assert.ok(lines.includes(`describe deployments --namespace ${ns}`), ns);
    }
  });

  it('never reads Secrets and gives each command its own file name', function () {
    for (const c of commands) {
      assert.ok(!c.args.some((a) => /secret/i.test(a)), c.args.join(' '));
      assert.match(c.name, /^[a-z0-9.-]+$/);
    }
    assert.equal(new Set(commands.map((c) => c.name)).size, commands.length);
  });

  it('collects current and previous logs of every container of each pod, but not PostgreSQL', function () {
    const logs = podLogCommands('aiplane-system', [
      'pod/aiplane-api-7d9f-abcde',
      'aiplane-operator-5c6d-fghij',
      'pod/postgres-6b7c-klmno',
      '',
    ]);
    assert.deepEqual(
      logs.map((c) => c.name),
      [
        'logs-aiplane-system-aiplane-api-7d9f-abcde',
        'logs-aiplane-system-aiplane-api-7d9f-abcde-previous',
        'logs-aiplane-system-aiplane-operator-5c6d-fghij',
        'logs-aiplane-system-aiplane-operator-5c6d-fghij-previous',
      ],
    );
    const [current, previous] = logs;
    assert.deepEqual(current?.args, [
      'logs',
      '--namespace',
      'aiplane-system',
      'aiplane-api-7d9f-abcde',
      '--all-containers',
      '--timestamps',
      '--tail=2000',
    ]);
    assert.ok(previous?.args.includes('--previous'));
  });
});
