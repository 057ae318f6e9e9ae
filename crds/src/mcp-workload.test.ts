import assert from 'node:assert/strict';
import type { McpServer } from './mcp-server.js';
import {
  envChecksum,
  MCP_WORKLOAD_LABELS,
  mcpDeployment,
  mcpService,
  mcpServiceName,
  mcpWorkloadUrl,
  workloadResolver,
} from './mcp-workload.js';

const server = (spec: Partial<McpServer['spec']> = {}): McpServer => ({
  apiVersion: 'aiplane.io/v1alpha1',
  kind: 'McpServer',
  metadata: { name: 'files', namespace: 'tenant-acme', uid: 'u-1' },
  spec: { runtime: 'managed', displayName: 'Files', image: 'ghcr.io/a/b:1', port: 8080, ...spec },
});

describe('managed MCP workload', () => {
  it('names the Service after the server, or a hash when the name starts with a digit', () => {
    assert.equal(mcpServiceName('files'), 'files');
    assert.match(mcpServiceName('9lives'), /^mcp-[0-9a-f]{16}$/);
    assert.notEqual(mcpServiceName('9lives'), mcpServiceName('8lives'));
  });

  it('answers the in-cluster url with the default or given path', () => {
    assert.equal(mcpWorkloadUrl(server()), 'http://files.tenant-acme.svc:8080/mcp');
    assert.equal(
      mcpWorkloadUrl(server({ path: '/v1/rpc' })),
      'http://files.tenant-acme.svc:8080/v1/rpc',
    );
  });

  it('changes the env checksum with any value and not with key order', () => {
    assert.equal(envChecksum({ A: '1', B: '2' }), envChecksum({ B: '2', A: '1' }));
    assert.notEqual(envChecksum({ A: '1' }), envChecksum({ A: '2' }));
    assert.notEqual(envChecksum({ A: '1' }), envChecksum({}));
  });

  it('lets a given security value replace the default and a null keep it', () => {
    const d = mcpDeployment(
      server({ security: { runAsNonRoot: false, readOnlyRootFilesystem: null } }),
      { envChecksum: 'x' },
    );
    const c = d.spec?.template.spec?.containers[0];
    assert.equal(c?.securityContext?.runAsNonRoot, false);
    assert.equal(c?.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(d.spec?.template.spec?.securityContext?.runAsNonRoot, false);
  });

  it('omits args for empty arguments and envFrom without an env Secret', () => {
    const c = mcpDeployment(server({ arguments: [] }), { envChecksum: 'x' }).spec?.template.spec
      ?.containers[0];
    assert.equal(c?.args, undefined);
    assert.equal(c?.envFrom, undefined);
  });

  it('selects the same pods from the Service as the Deployment runs', () => {
    const s = server();
    assert.deepEqual(
      mcpService(s).spec?.selector,
      mcpDeployment(s, { envChecksum: 'x' }).spec?.selector.matchLabels,
    );
  });

  it('carries the workload labels on every child, the pods included, and not in the selector', () => {
    const s = server();
    const d = mcpDeployment(s, { envChecksum: 'x' });
    for (const labels of [
      d.metadata?.labels,
      d.spec?.template.metadata?.labels,
      mcpService(s).metadata?.labels,
    ]) {
      assert.deepEqual({ ...labels, ...MCP_WORKLOAD_LABELS }, labels);
    }
    assert.equal(d.spec?.selector.matchLabels?.['app.kubernetes.io/managed-by'], undefined);
    assert.equal(MCP_WORKLOAD_LABELS['app.kubernetes.io/managed-by'], 'aiplane-operator');
  });

  it('resolves workload addresses to a host only when one is configured', () => {
    assert.equal(
      workloadResolver(null)('http://files.ns.svc:8080/mcp'),
      'http://files.ns.svc:8080/mcp',
    );
    assert.equal(
      workloadResolver('127.0.0.1')('http://files.ns.svc:8080/mcp'),
      'http://127.0.0.1:8080/mcp',
    );
  });
});
