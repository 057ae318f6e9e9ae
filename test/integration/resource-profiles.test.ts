import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { kubeRequest } from '@aiplane/lib';
import { podSchedulingOf, type ResourceProfile } from '@aiplane/api';
import {
  assertCode,
  assertValidationFailed,
  keycloak,
  startTestApi,
  type DevUser,
  type TestApi,
} from './api-helpers.js';
import { caller, type Call } from './fixtures/index.js';
import { kubeConfig } from './harness.js';
import { setPermissionsIn } from './keycloak-admin.js';

const GPU = {
  name: 'gpu-a100',
  display_name: 'GPU (A100, 2 devices)',
  resources: { cpu: '8', memory: '64Gi', gpu: { count: 2 } },
  node_selector: { 'nvidia.com/gpu.product': 'A100-SXM4-80GB' },
  tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
};

describe('resource profiles: list, create, enable, disable, replace, delete (can_manage_models)', function () {
  this.timeout(60_000);
  let api: TestApi;
  let acme: string;
  const other = randomUUID();
  const as = (user: DevUser, organizationId = acme): Call => caller(api.url, user, organizationId);

  before(async function () {
    api = await startTestApi('resource-profiles');
    acme = keycloak().organization.id;
  });

  after(async function () {
    await api?.close();
  });

  it('creates a profile (disabled unless asked), lists it, and enables and disables it', async function () {
    const created = await as('admin')('POST', '/v1/resource-profiles', GPU);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('location'), '/v1/resource-profiles/gpu-a100');
    const profile = created.json() as ResourceProfile;
    assert.equal(profile.enabled, false);
    assert.deepEqual(profile.resources, {
      cpu: '8',
      memory: '64Gi',
      gpu: { count: 2, resource: 'nvidia.com/gpu' },
    });
    assert.equal(profile.display_name, GPU.display_name);

    const enabled = await as('admin')('POST', '/v1/resource-profiles/gpu-a100/enable');
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal((enabled.json() as ResourceProfile).enabled, true);
    const listed = await as('admin')('GET', '/v1/resource-profiles?enabled=true');
    assert.deepEqual(
      (listed.json() as { resource_profiles: ResourceProfile[] }).resource_profiles.map(
        (p) => p.name,
      ),
      ['gpu-a100'],
    );
    const disabled = await as('admin')('POST', '/v1/resource-profiles/gpu-a100/disable');
    assert.equal((disabled.json() as ResourceProfile).enabled, false);
    const none = await as('admin')('GET', '/v1/resource-profiles?enabled=true');
    assert.deepEqual(none.json(), { resource_profiles: [], count: 0 });
    const all = await as('admin')('GET', '/v1/resource-profiles');
    assert.equal((all.json() as { count: number }).count, 1);
  });

  it('gives a profile a pod scheduling the real kube-apiserver accepts (server-side dry run)', async function () {
    const profile = (
      await as('admin')('GET', '/v1/resource-profiles/gpu-a100')
    ).json() as ResourceProfile;
    const scheduling = podSchedulingOf(profile);
    const pod = await kubeRequest<{ spec: { containers: { resources: unknown }[] } }>(
      kubeConfig(),
      {
        method: 'POST',
        path: '/api/v1/namespaces/default/pods',
        query: { dryRun: 'All' },
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'profile-check' },
          spec: {
            nodeSelector: scheduling.nodeSelector,
            tolerations: scheduling.tolerations,
            containers: [
              { name: 'model', image: 'example.invalid/model:1', resources: scheduling.resources },
            ],
          },
        },
      },
    );
    assert.deepEqual(pod.spec.containers[0]?.resources, scheduling.resources);
  });

  it('replaces a definition, keeping enabled unless sent, and deletes it', async function () {
    const replaced = await as('admin')('PUT', '/v1/resource-profiles/gpu-a100', {
      resources: { cpu: '4', memory: '32Gi' },
      description: 'CPU only now',
    });
    assert.equal(replaced.status, 200, replaced.text);
    const p = replaced.json() as ResourceProfile;
    assert.deepEqual(p.resources, { cpu: '4', memory: '32Gi', gpu: null });
    assert.deepEqual(p.tolerations, []);
    assert.equal(p.display_name, 'gpu-a100');
    assert.equal(p.enabled, false);
    assert.equal((await as('admin')('DELETE', '/v1/resource-profiles/gpu-a100')).status, 204);
    assertCode(
      await as('admin')('GET', '/v1/resource-profiles/gpu-a100'),
      404,
      'resource_profile_not_found',
    );
    assertCode(
      await as('admin')('DELETE', '/v1/resource-profiles/gpu-a100'),
      404,
      'resource_profile_not_found',
    );
    assertCode(
      await as('admin')('POST', '/v1/resource-profiles/gpu-a100/enable'),
      404,
      'resource_profile_not_found',
    );
  });

  it('answers 409 for a second profile of the same name in one organization, not in another', async function () {
    const body = { name: 'cpu-small', resources: { cpu: '500m', memory: '1Gi' } };
    assert.equal((await as('admin')('POST', '/v1/resource-profiles', body)).status, 201);
    assertCode(
      await as('admin')('POST', '/v1/resource-profiles', body),
      409,
      'resource_profile_exists',
    );
    assert.equal((await as('admin', other)('POST', '/v1/resource-profiles', body)).status, 201);
    // Each organization sees its own.
    const inOther = await as('admin', other)('GET', '/v1/resource-profiles');
    assert.equal((inOther.json() as { count: number }).count, 1);
    await as('admin', other)('DELETE', '/v1/resource-profiles/cpu-small');
    await as('admin')('DELETE', '/v1/resource-profiles/cpu-small');
  });

  it('answers 422 naming the field for what Kubernetes would not take, and stores nothing', async function () {
    assertValidationFailed(
      await as('admin')('POST', '/v1/resource-profiles', {
        ...GPU,
        resources: { cpu: '8 cores', memory: '64Gi' },
      }),
      'resources.cpu',
    );
    assertValidationFailed(
      await as('admin')('POST', '/v1/resource-profiles', {
        ...GPU,
        tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }],
      }),
      'tolerations[0].value',
    );
    assertValidationFailed(
      await as('admin')('GET', '/v1/resource-profiles?enabled=yes'),
      'enabled',
    );
    assert.equal(
      ((await as('admin')('GET', '/v1/resource-profiles')).json() as { count: number }).count,
      0,
    );
  });

  it('needs can_manage_models in the organization for every route, reading included', async function () {
    for (const [method, path] of [
      ['GET', '/v1/resource-profiles'],
      ['POST', '/v1/resource-profiles'],
      ['GET', '/v1/resource-profiles/gpu-a100'],
      ['PUT', '/v1/resource-profiles/gpu-a100'],
      ['POST', '/v1/resource-profiles/gpu-a100/enable'],
      ['DELETE', '/v1/resource-profiles/gpu-a100'],
    ] as const) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : GPU;
      assertCode(await as('member')(method, path, body), 403, 'permission_denied');
      assertCode(await as('outsider')(method, path, body), 403, 'permission_denied');
    }
    // Granted through acme's group (docs/adr/0022), the member may.
    const member = keycloak().users.member.id;
    await setPermissionsIn(acme, member, ['can_access_api', 'can_manage_models']);
    try {
      const r = await as('member')('GET', '/v1/resource-profiles');
      assert.equal(r.status, 200, r.text);
    } finally {
      await setPermissionsIn(acme, member, ['can_access_api']);
    }
  });
});
