import assert from 'node:assert/strict';
import { parseForwardedPort, portForwardArgs } from './port-forward.js';

describe('kubectl port-forward output and arguments', function () {
  const cases: [string, number | undefined][] = [
    ['Forwarding from 127.0.0.1:43121 -> 8080', 43121],
    ['Forwarding from 127.0.0.1:8080 -> 8080\n', 8080],
    ['Forwarding from [::1]:43121 -> 8080', 43121],
    ['  Forwarding from 127.0.0.1:1 -> 5432  ', 1],
    ['Handling connection for 8080', undefined],
    ['Forwarding from 127.0.0.1:0 -> 8080', undefined],
    ['Forwarding from 127.0.0.1:70000 -> 8080', undefined],
    ['Forwarding from localhost:43121 -> 8080', undefined],
    ['error: unable to forward port because pod is not running', undefined],
    ['', undefined],
  ];
  for (const [line, port] of cases) {
    it(`reads ${port === undefined ? 'no port' : `port ${port}`} from ${JSON.stringify(line)}`, function () {
      assert.equal(parseForwardedPort(line), port);
    });
  }

  it('lets kubectl pick the local port when none is asked for, on 127.0.0.1 only', function () {
    assert.deepEqual(
      portForwardArgs({ namespace: 'aiplane-system', target: 'svc/keycloak', remotePort: 8080 }),
      [
        'port-forward',
        '--address',
        '127.0.0.1',
        '--namespace',
        'aiplane-system',
        'svc/keycloak',
        ':8080',
      ],
    );
  });

  it('forwards from a fixed local port when one is given (the gateway, whose public URL is set before install)', function () {
    const args = portForwardArgs({
      namespace: 'aiplane-system',
      target: 'svc/aiplane-gateway',
      remotePort: 8090,
      localPort: 41234,
    });
    assert.equal(args.at(-1), '41234:8090');
    assert.equal(args.at(-2), 'svc/aiplane-gateway');
  });
});
