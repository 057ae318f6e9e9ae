import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import {
  isolationBreaches,
  parseProbeLog,
  PROBE_SCRIPT,
  probePod,
  type ProbeTarget,
} from './network-probe.js';

const run = promisify(execFile);

describe('the tenant network probe', () => {
  it('reports connected for a listener, an error for a closed port and unresolved for an unknown name (its script run with node)', async () => {
    const listener = createServer((s) => s.end());
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    const open = (listener.address() as AddressInfo).port;
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    try {
      const targets: ProbeTarget[] = [
        { name: 'open', host: 'localhost', port: open },
        { name: 'closed', host: '127.0.0.1', port: closedPort },
        { name: 'unknown', host: 'no-such-host.invalid', port: 80 },
      ];
      const { stdout } = await run(process.execPath, ['-e', PROBE_SCRIPT], {
        env: { PROBE_TARGETS: JSON.stringify(targets), PROBE_TIMEOUT_MS: '3000' },
      });
      const results = parseProbeLog(stdout);
      assert.deepEqual(results, [
        { name: 'open', resolved: true, outcome: 'connected' },
        { name: 'closed', resolved: true, outcome: 'error:ECONNREFUSED' },
        { name: 'unknown', resolved: false, outcome: 'unresolved' },
      ]);
      assert.deepEqual(isolationBreaches(results ?? [], targets), [
        `open (localhost:${open}) was reachable`,
        'unknown (no-such-host.invalid) did not resolve: DNS is not allowed',
      ]);
    } finally {
      listener.close();
    }
  });

  it('finds no breach when every name resolved and nothing connected', () => {
    const targets = [{ name: 'api', host: 'aiplane-api.aiplane-system.svc', port: 8080 }];
    assert.deepEqual(
      isolationBreaches([{ name: 'api', resolved: true, outcome: 'timeout' }], targets),
      [],
    );
    assert.deepEqual(isolationBreaches([], targets), ['no result for api']);
  });

  it('answers undefined for a log without the result line', () => {
    assert.equal(parseProbeLog('starting\n'), undefined);
  });

  it('runs as a restricted pod that never restarts and carries no service account token', () => {
    const pod = probePod({
      name: 'probe',
      namespace: 'tenant-x',
      image: 'img:1',
      targets: [{ name: 'api', host: 'h', port: 1 }],
      timeoutMs: 5000,
    });
    const spec = pod.spec ?? assert.fail('no spec');
    const c = spec.containers[0] ?? assert.fail('no container');
    assert.equal(spec.restartPolicy, 'Never');
    assert.equal(spec.automountServiceAccountToken, false);
    assert.equal(spec.securityContext?.seccompProfile?.type, 'RuntimeDefault');
    assert.equal(c.securityContext?.allowPrivilegeEscalation, false);
    assert.deepEqual(c.securityContext?.capabilities?.drop, ['ALL']);
    assert.equal(c.securityContext?.runAsNonRoot, true);
    assert.deepEqual(c.command?.slice(0, 2), ['node', '-e']);
  });
});
