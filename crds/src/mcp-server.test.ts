import assert from 'node:assert/strict';
import { API_VERSION } from './meta.js';
import { DEFAULT_MCP_PATH, mcpServerPath } from './mcp-server.js';
import { assertAccepted, assertRefused, chars, type BadCase } from './test-helpers.js';
import { validateMcpServer, validateMcpServerSpec, validateMcpServerStatus } from './validate.js';

const managed = (extra: Record<string, unknown> = {}) => ({
  runtime: 'managed',
  displayName: 'Files',
  image: 'ghcr.io/example/mcp:1.0.0',
  port: 8080,
  ...extra,
});
const remote = (extra: Record<string, unknown> = {}) => ({
  runtime: 'remote',
  displayName: 'Search',
  address: 'https://mcp.example.com/mcp',
  ...extra,
});

/** A valid value for every field only a managed server may carry. */
const managedOnly: Record<string, unknown> = {
  image: 'ghcr.io/example/mcp:1.0.0',
  port: 8080,
  path: '/mcp',
  arguments: ['--stdio=false'],
  envSecretRef: { name: 'files-env' },
  resources: { cpuRequest: '100m' },
  security: { runAsNonRoot: true },
};

describe('McpServer validators', function () {
  it('accepts a minimal managed server, defaulting the allowlist but not the path', function () {
    const value = assertAccepted(validateMcpServerSpec(managed()));
    assert.deepEqual(value.toolAllowlist, []);
    assert.equal(value.path, undefined);
    assert.equal(mcpServerPath(value), DEFAULT_MCP_PATH);
  });

  it('accepts a managed server with every field, nulls keeping platform defaults', function () {
    const input = managed({
      description: null,
      toolAllowlist: ['search', 'read'],
      path: '/v1/mcp',
      arguments: ['serve', '--port=8080'],
      envSecretRef: { name: 'files-env' },
      resources: { cpuRequest: '100m', memoryRequest: null, cpuLimit: null, memoryLimit: '1Gi' },
      security: {
        runAsNonRoot: null,
        runAsUser: 1000,
        runAsGroup: null,
        readOnlyRootFilesystem: true,
      },
    });
    const value = assertAccepted(validateMcpServerSpec(input));
    assert.deepEqual(value, input);
    assert.equal(mcpServerPath(value), '/v1/mcp');
  });

  it('accepts a remote server, which has no path', function () {
    const value = assertAccepted(validateMcpServerSpec(remote({ description: 'web search' })));
    assert.equal(value.address, 'https://mcp.example.com/mcp');
    assert.equal(mcpServerPath(value), null);
  });

  it('accepts a remote server with a null description and an allowlist', function () {
    assertAccepted(validateMcpServerSpec(remote({ description: null, toolAllowlist: ['search'] })));
  });

  it('reports only the missing runtime when the runtime is missing', function () {
    const result = validateMcpServerSpec({ displayName: 'x', image: 'i', port: 1 });
    assert.equal(result.ok, false);
    assert.deepEqual(!result.ok && result.errors, [{ path: 'runtime', message: 'is required' }]);
  });

  const exclusivity: BadCase[] = [
    [
      'a managed server without an image',
      managed({ image: undefined }),
      'image',
      /^image is required when runtime is managed$/,
    ],
    [
      'a managed server without a port',
      managed({ port: undefined }),
      'port',
      /^port is required when runtime is managed$/,
    ],
    [
      'a managed server with an address',
      managed({ address: 'https://x.example/mcp' }),
      'address',
      /^address is not allowed when runtime is managed$/,
    ],
    [
      'a remote server without an address',
      remote({ address: undefined }),
      'address',
      /^address is required when runtime is remote$/,
    ],
    ...Object.entries(managedOnly).map(([field, value]): BadCase => [
      `a remote server with ${field}`,
      remote({ [field]: value }),
      field,
      new RegExp(`^${field} is not allowed when runtime is remote$`),
    ]),
  ];
  for (const [what, input, path, message] of exclusivity) {
    it(`refuses ${what}, naming ${path}`, function () {
      assertRefused(validateMcpServerSpec(input), path, message);
    });
  }

  const fieldRules: BadCase[] = [
    [
      'an unknown runtime',
      managed({ runtime: 'lambda' }),
      'runtime',
      /must be one of: managed, remote/,
    ],
    ['no display name', managed({ displayName: undefined }), 'displayName', /is required/],
    ['an empty display name', managed({ displayName: '' }), 'displayName', /fewer than 1/],
    ['a 201-character display name', managed({ displayName: chars(201) }), 'displayName', /200/],
    ['a 501-character description', managed({ description: chars(501) }), 'description', /500/],
    [
      '257 allowlisted tools',
      managed({ toolAllowlist: Array.from({ length: 257 }, (_, i) => `t${i}`) }),
      'toolAllowlist',
      /256/,
    ],
    [
      'a 129-character tool name',
      managed({ toolAllowlist: [chars(129)] }),
      'toolAllowlist[0]',
      /128/,
    ],
    ['a 513-character image', managed({ image: chars(513) }), 'image', /512/],
    ['port 0', managed({ port: 0 }), 'port', />= 1/],
    ['port 65536', managed({ port: 65536 }), 'port', /<= 65535/],
    ['a fractional port', managed({ port: 80.5 }), 'port', /integer/],
    ['a path not starting with a slash', managed({ path: 'mcp' }), 'path', /pattern/],
    [
      '65 arguments',
      managed({ arguments: Array.from({ length: 65 }, () => 'a') }),
      'arguments',
      /64/,
    ],
    [
      'a 4097-character argument',
      managed({ arguments: ['ok', chars(4097)] }),
      'arguments[1]',
      /4096/,
    ],
    [
      'a Secret reference without a name',
      managed({ envSecretRef: {} }),
      'envSecretRef.name',
      /is required/,
    ],
    [
      'an unknown resources key',
      managed({ resources: { cpu: '1' } }),
      'resources.cpu',
      /not a known field/,
    ],
    ['a negative user id', managed({ security: { runAsUser: -1 } }), 'security.runAsUser', />= 0/],
    [
      'a string user id',
      managed({ security: { runAsUser: '1000' } }),
      'security.runAsUser',
      /integer/,
    ],
    [
      'a 2049-character address',
      remote({ address: `https://x.example/${chars(2031)}` }),
      'address',
      /2048/,
    ],
    [
      'an address that is not http(s)',
      remote({ address: 'ftp://x.example/mcp' }),
      'address',
      /pattern/,
    ],
    [
      'an env object (values belong in the Secret)',
      managed({ env: { A: 'b' } }),
      'env',
      /not a known field/,
    ],
  ];
  for (const [what, input, path, message] of fieldRules) {
    it(`refuses ${what} at ${path}`, function () {
      assertRefused(validateMcpServerSpec(input), path, message);
    });
  }

  it('accepts a whole namespaced object and refuses a bad spec inside it by its full path', function () {
    const object = {
      apiVersion: API_VERSION,
      kind: 'McpServer',
      metadata: { name: 'files', namespace: 'tenant-acme' },
      spec: managed(),
    };
    assert.equal(assertAccepted(validateMcpServer(object)).metadata.namespace, 'tenant-acme');
    assertRefused(
      validateMcpServer({ ...object, spec: remote({ port: 80 }) }),
      'spec.port',
      /port is not allowed when runtime is remote/,
    );
  });

  it('accepts a status with conditions', function () {
    const status = {
      ready: true,
      replicas: 1,
      readyReplicas: 1,
      url: 'http://files.tenant-acme.svc:8080/mcp',
      observedGeneration: 3,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'HandshakeFailed',
          message: '',
          lastTransitionTime: '2025-01-02T03:04:05Z',
        },
      ],
    };
    assert.deepEqual(assertAccepted(validateMcpServerStatus(status)), status);
  });

  const badStatuses: BadCase[] = [
    ['a non-boolean ready', { ready: 'true' }, 'ready', /boolean/],
    ['negative replicas', { replicas: -1 }, 'replicas', />= 0/],
    [
      'a condition without a reason',
      {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            message: '',
            lastTransitionTime: '2025-01-02T03:04:05Z',
          },
        ],
      },
      'conditions[0].reason',
      /is required/,
    ],
  ];
  for (const [what, input, path, message] of badStatuses) {
    it(`refuses a status with ${what} at ${path}`, function () {
      assertRefused(validateMcpServerStatus(input), path, message);
    });
  }
});
