import assert from 'node:assert/strict';
import { API_VERSION } from '@aiplane/crds';
import { kubeConfig } from './harness.js';
import { kubectl, objectApi, uniqueName } from './kube-helpers.js';

describe('kubectl with the built CRDs', function () {
  it('shows Slug, Phase, Identity, Database, Ready and Age for `kubectl get tl`', async function () {
    const slug = uniqueName('kctl');
    await objectApi(kubeConfig()).create({
      apiVersion: API_VERSION,
      kind: 'TenantLifecycle',
      metadata: { name: slug },
      spec: { slug, identity: { enabled: true }, database: { dedicated: true } },
    });
    const out = await kubectl(['get', 'tl', slug]);
    const [header, row] = out.trim().split('\n');
    assert.deepEqual(header?.split(/\s+/), [
      'NAME',
      'SLUG',
      'PHASE',
      'IDENTITY',
      'DATABASE',
      'READY',
      'AGE',
    ]);
    assert.match(row ?? '', new RegExp(`^${slug}\\s+${slug}\\s+.*true`));
  });

  it('shows Runtime, Ready, URL and Age for `kubectl get mcps`, and both under `kubectl get aiplane`', async function () {
    const name = uniqueName('kctl');
    await objectApi(kubeConfig()).create({
      apiVersion: API_VERSION,
      kind: 'McpServer',
      metadata: { name, namespace: 'default' },
      spec: { runtime: 'remote', displayName: 'K', address: 'https://mcp.example.com/mcp' },
    });
    const out = await kubectl(['get', 'mcps', name, '-n', 'default']);
    const [header, row] = out.trim().split('\n');
    assert.deepEqual(header?.split(/\s+/), ['NAME', 'RUNTIME', 'READY', 'URL', 'AGE']);
    assert.match(row ?? '', new RegExp(`^${name}\\s+remote`));
    const all = await kubectl(['get', 'aiplane', '-A']);
    assert.match(all, /tenantlifecycle\.aiplane\.io\//);
    assert.match(all, new RegExp(`mcpserver\\.aiplane\\.io/${name}`));
  });
});
