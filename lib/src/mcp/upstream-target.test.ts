import assert from 'node:assert/strict';
import type { McpServer } from '@aiplane/crds';
import { ApiError } from '../errors/api-error.js';
import { upstreamTarget } from './upstream-target.js';

const remoteFetch = () => Promise.reject(new Error('remote'));
const workloadFetch = () => Promise.reject(new Error('workload'));
const dialers = {
  remoteFetch,
  workloadFetch,
  resolveWorkload: (u: string) => u.replace('files.tenant-a.svc', '127.0.0.1'),
};
const server = (spec: Partial<McpServer['spec']>, status?: McpServer['status']): McpServer => ({
  apiVersion: 'aiplane.io/v1alpha1',
  kind: 'McpServer',
  metadata: { name: 'files', namespace: 'tenant-a', uid: 'u' },
  spec: { runtime: 'managed', displayName: 'F', image: 'ghcr.io/a/b:1', port: 8080, ...spec },
  ...(status ? { status } : {}),
});

describe('upstreamTarget', () => {
  it('dials a remote server at its stored address through the pinned fetch', () => {
    const t = upstreamTarget(
      server({ runtime: 'remote', address: 'https://x.example/mcp?a=1' }),
      dialers,
    );
    assert.deepEqual(t, { url: 'https://x.example/mcp?a=1', fetch: remoteFetch });
  });

  it('refuses a managed server that is not ready with 503 mcp_server_not_ready', () => {
    assert.throws(
      () => upstreamTarget(server({}, { ready: false }), dialers),
      (e: unknown) => e instanceof ApiError && e.code === 'mcp_server_not_ready',
    );
  });

  it('dials a ready managed server at the Service address from its spec, not status.url', () => {
    const t = upstreamTarget(
      server({}, { ready: true, url: 'http://elsewhere.internal/' }),
      dialers,
    );
    assert.deepEqual(t, { url: 'http://127.0.0.1:8080/mcp', fetch: workloadFetch });
  });
});
