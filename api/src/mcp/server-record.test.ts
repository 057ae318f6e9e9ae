import assert from 'node:assert/strict';
import type { McpServer } from '@aiplane/crds';
import { serverRecord } from './server-record.js';

const base = (spec: McpServer['spec'], status?: McpServer['status']): McpServer => ({
  apiVersion: 'aiplane.io/v1alpha1',
  kind: 'McpServer',
  metadata: {
    name: 'files',
    namespace: 'tenant-acme',
    uid: '6f1c0a5e-1b7a-4c43-9a53-7f0e0f0e0f0e',
    labels: { 'aiplane.io/organization-id': 'org-1' },
  },
  spec,
  ...(status ? { status } : {}),
});
const managed = {
  runtime: 'managed' as const,
  displayName: 'Files',
  image: 'ghcr.io/a/b:1',
  port: 8080,
};
const opts = { gatewayBase: null, link: { linked: false, lastUsedAt: null } };

describe('serverRecord', () => {
  it('answers status null for a managed server the operator has not reported on', () => {
    assert.equal(serverRecord(base(managed), opts).status, null);
    assert.equal(serverRecord(base(managed, {}), opts).status, null);
  });

  it('answers status null for a remote server whatever the resource carries', () => {
    const remote = {
      runtime: 'remote' as const,
      displayName: 'R',
      address: 'https://x.example/mcp',
    };
    assert.equal(serverRecord(base(remote, { ready: true }), opts).status, null);
  });

  it('maps a reported status: ready, replicas, ready_replicas, url and conditions', () => {
    const r = serverRecord(
      base(managed, {
        ready: false,
        replicas: 1,
        readyReplicas: 0,
        url: 'http://mcp-files.tenant-acme.svc:8080/mcp',
        observedGeneration: 2,
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'HandshakeFailed',
            message: 'no MCP answer',
            lastTransitionTime: '2026-11-22T04:00:00Z',
          },
        ],
      }),
      opts,
    );
    assert.deepEqual(r.status, {
      ready: false,
      replicas: 1,
      ready_replicas: 0,
      url: 'http://mcp-files.tenant-acme.svc:8080/mcp',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'HandshakeFailed',
          message: 'no MCP answer',
          last_transition_time: '2026-11-22T04:00:00Z',
        },
      ],
    });
  });

  it('answers gateway_url null when the deployment publishes no gateway, and the full address otherwise', () => {
    const s = base(managed);
    assert.equal(serverRecord(s, opts).gateway_url, null);
    assert.equal(
      serverRecord(s, { ...opts, gatewayBase: 'https://gw.example.com' }).gateway_url,
      `https://gw.example.com/servers/${s.metadata.uid}/mcp`,
    );
  });
});
