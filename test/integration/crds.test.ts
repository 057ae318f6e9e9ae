import assert from 'node:assert/strict';
import { API_VERSION } from '@aiplane/crds';
import { kubeConfig } from './harness.js';
import { objectApi, refusal, uniqueName, type Obj } from './kube-helpers.js';

const tenant = (slug: string, extra: Record<string, unknown> = {}): Obj => ({
  apiVersion: API_VERSION,
  kind: 'TenantLifecycle',
  metadata: { name: slug },
  spec: { slug, identity: { enabled: true }, ...extra },
});

const mcp = (name: string, spec: Record<string, unknown>): Obj => ({
  apiVersion: API_VERSION,
  kind: 'McpServer',
  metadata: { name, namespace: 'default' },
  spec: { displayName: name, ...spec },
});

const managed = { runtime: 'managed', image: 'ghcr.io/example/mcp:1.0.0', port: 8080 };
const remote = { runtime: 'remote', address: 'https://mcp.example.com/mcp' };

describe('custom resources in the real apiserver', function () {
  const api = () => objectApi(kubeConfig());

  it('stores a valid TenantLifecycle and defaults database.dedicated to false', async function () {
    const slug = uniqueName('acme');
    const created = await api().create(tenant(slug));
    assert.equal(created.spec?.slug, slug);
    assert.deepEqual(created.spec?.database, { dedicated: false });
    assert.equal(created.metadata?.generation, 1);
  });

  const badTenants: [string, Obj, RegExp][] = [
    ['an uppercase slug', tenant('acme', { slug: 'Acme' }), /slug/],
    ['a slug ending with a dash', tenant('acme-x', { slug: 'acme-' }), /slug/],
    ['identity disabled', tenant('acme-y', { identity: { enabled: false } }), /identity/i],
    ['no identity', { ...tenant('acme-z'), spec: { slug: 'acme-z' } }, /identity/],
    [
      'a name other than its slug',
      { ...tenant('acme-n'), metadata: { name: 'other-n' } },
      /metadata.name must equal spec.slug/,
    ],
  ];
  for (const [what, obj, message] of badTenants) {
    it(`refuses a TenantLifecycle with ${what}, naming the field`, async function () {
      const r = await refusal(api().create(obj));
      assert.equal(r.code, 422);
      assert.match(r.message, message);
    });
  }

  it('refuses to change the slug of an existing TenantLifecycle', async function () {
    const slug = uniqueName('imm');
    const created = await api().create(tenant(slug));
    const changed = { ...created, spec: { ...created.spec, slug: `${slug}-x` } };
    const r = await refusal(api().replace(changed));
    assert.equal(r.code, 422);
    assert.match(r.message, /slug.*immutable|immutable.*slug/i);
  });

  it('accepts a display name change, bumping generation', async function () {
    const created = await api().create(tenant(uniqueName('gen')));
    const updated = await api().replace({
      ...created,
      spec: { ...created.spec, displayName: 'New' },
    });
    assert.equal(updated.metadata?.generation, 2);
  });

  it('stores a managed and a remote McpServer', async function () {
    const m = await api().create(mcp(uniqueName('m'), managed));
    const r = await api().create(mcp(uniqueName('r'), remote));
    assert.equal(m.spec?.runtime, 'managed');
    assert.equal(r.spec?.address, remote.address);
  });

  const badServers: [string, Record<string, unknown>, RegExp][] = [
    ['a remote server with an image', { ...remote, image: 'ghcr.io/x/y:1' }, /image/],
    ['a remote server with a port', { ...remote, port: 80 }, /port/],
    ['a remote server without an address', { runtime: 'remote' }, /address/],
    [
      'a managed server with an address',
      { ...managed, address: 'https://x.example/mcp' },
      /address/,
    ],
    ['a managed server without an image', { runtime: 'managed', port: 8080 }, /image/],
    ['a port out of range', { ...managed, port: 70000 }, /port/],
    ['an unknown runtime', { ...managed, runtime: 'lambda' }, /runtime/],
    ['a path not starting with a slash', { ...managed, path: 'mcp' }, /path/],
  ];
  for (const [what, spec, message] of badServers) {
    it(`refuses ${what}, naming the field`, async function () {
      const r = await refusal(api().create(mcp(uniqueName('bad'), spec)));
      assert.equal(r.code, 422, r.message);
      assert.match(r.message, message);
    });
  }

  it('refuses to change the runtime of an existing McpServer', async function () {
    const created = await api().create(mcp(uniqueName('rt'), managed));
    const r = await refusal(api().replace({ ...created, spec: { displayName: 'x', ...remote } }));
    assert.equal(r.code, 422);
    assert.match(r.message, /runtime.*immutable|immutable.*runtime/i);
  });
});
