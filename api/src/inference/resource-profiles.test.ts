import assert from 'node:assert/strict';
import { fieldsOf } from '@aiplane/lib/testing';
import { validator } from '@aiplane/lib/service';
import {
  definitionOf,
  podSchedulingOf,
  ResourceProfileCreate,
  ResourceProfileReplace,
} from './resource-profiles.js';

const parse = validator(ResourceProfileCreate);

describe('resource profiles (pure rules)', function () {
  const gpu = {
    name: 'gpu-a100',
    resources: { cpu: '8', memory: '64Gi', gpu: { count: 2 } },
    node_selector: { 'nvidia.com/gpu.product': 'A100-SXM4-80GB' },
    tolerations: [
      { key: 'nvidia.com/gpu', operator: 'Exists' as const, effect: 'NoSchedule' as const },
    ],
  };

  it('fills in defaults: display name, description, the GPU resource name and the Equal operator', function () {
    const { name, ...rest } = parse(gpu);
    const d = definitionOf(name, rest);
    assert.equal(d.display_name, 'gpu-a100');
    assert.equal(d.description, '');
    assert.deepEqual(d.resources.gpu, { count: 2, resource: 'nvidia.com/gpu' });
    const cpu = definitionOf('cpu', {
      resources: { cpu: '500m', memory: '512Mi' },
      tolerations: [{ key: 'a', value: 'b' }],
    });
    assert.equal(cpu.resources.gpu, null);
    assert.deepEqual(cpu.tolerations, [{ key: 'a', value: 'b', operator: 'Equal' }]);
  });

  it('turns a profile into pod scheduling: requests equal limits, GPUs as their extended resource', function () {
    const { name, ...rest } = parse(gpu);
    assert.deepEqual(podSchedulingOf(definitionOf(name, rest)), {
      resources: {
        requests: { cpu: '8', memory: '64Gi', 'nvidia.com/gpu': '2' },
        limits: { cpu: '8', memory: '64Gi', 'nvidia.com/gpu': '2' },
      },
      nodeSelector: { 'nvidia.com/gpu.product': 'A100-SXM4-80GB' },
      tolerations: gpu.tolerations,
    });
  });

  it('refuses quantities, names and labels Kubernetes would not take, naming each field', function () {
    const bad = {
      name: 'GPU_big',
      resources: { cpu: '-1', memory: '64 GB', gpu: { count: 0, resource: 'gpu' } },
      node_selector: { 'bad key!': 'x', ok: 'not ok value!' },
      tolerations: [{ operator: 'Maybe' }],
      extra: true,
    };
    const fields = fieldsOf(() => parse(bad));
    for (const f of [
      'name',
      'resources.cpu',
      'resources.memory',
      'resources.gpu.count',
      'resources.gpu.resource',
      'node_selector.ok',
      'tolerations[0].operator',
      'extra',
    ]) {
      assert.ok(fields.includes(f), `${f} in ${fields.join(', ')}`);
    }
    // A key missing the pattern is refused whatever its value (security review, issue 16).
    assert.ok(fields.includes('node_selector.bad key!'), fields.join(', '));
    const nested = {
      name: 'p',
      resources: { cpu: '1', memory: '1Gi' },
      node_selector: { 'Bad!': {} },
    };
    assert.deepEqual(
      fieldsOf(() => parse(nested)),
      ['node_selector.Bad!'],
    );
  });

  it('accepts the usual quantity forms', function () {
    for (const cpu of ['250m', '1', '1.5', '0.5', '64']) {
      for (const memory of ['512Mi', '64Gi', '1G', '1073741824']) {
        assert.doesNotThrow(
          () => parse({ name: 'p', resources: { cpu, memory } }),
          `${cpu} ${memory}`,
        );
      }
    }
  });

  it('refuses a toleration whose operator and value disagree, and one that tolerates every taint', function () {
    assert.deepEqual(
      fieldsOf(() =>
        definitionOf('p', {
          resources: { cpu: '1', memory: '1Gi' },
          tolerations: [
            { key: 'k', operator: 'Exists', value: 'v' },
            { operator: 'Equal' },
            { operator: 'Exists' },
          ],
        }),
      ),
      ['tolerations[0].value', 'tolerations[1].key', 'tolerations[2].key'],
    );
  });

  it('does not take a name in a replace body (the path names the profile)', function () {
    assert.deepEqual(
      fieldsOf(() =>
        validator(ResourceProfileReplace)({ name: 'x', resources: { cpu: '1', memory: '1Gi' } }),
      ),
      ['name'],
    );
  });
});
