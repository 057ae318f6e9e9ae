import assert from 'node:assert/strict';
import { API_VERSION } from './meta.js';
import { assertAccepted, assertRefused, chars, type BadCase } from './test-helpers.js';
import {
  validateTenantLifecycle,
  validateTenantLifecycleSpec,
  validateTenantLifecycleStatus,
} from './validate.js';

const spec = (extra: Record<string, unknown> = {}) => ({
  slug: 'acme',
  identity: { enabled: true },
  ...extra,
});
const condition = (extra: Record<string, unknown> = {}) => ({
  type: 'Ready',
  status: 'True',
  reason: 'Provisioned',
  message: 'all services are ready',
  lastTransitionTime: '2025-01-02T03:04:05Z',
  observedGeneration: 1,
  ...extra,
});

describe('TenantLifecycle validators', function () {
  it('accepts a minimal spec and defaults database.dedicated to false', function () {
    const value = assertAccepted(validateTenantLifecycleSpec(spec()));
    assert.deepEqual(value.database, { dedicated: false });
  });

  it('keeps an explicit dedicated database and the display name', function () {
    const input = spec({ displayName: 'Acme Inc.', database: { dedicated: true } });
    assert.deepEqual(assertAccepted(validateTenantLifecycleSpec(input)), input);
  });

  it('returns a copy and leaves the input untouched', function () {
    const input = spec();
    assertAccepted(validateTenantLifecycleSpec(input));
    assert.equal('database' in input, false);
  });

  const badSpecs: BadCase[] = [
    ['an uppercase slug', spec({ slug: 'Acme' }), 'slug', /pattern/],
    ['a slug ending with a dash', spec({ slug: 'acme-' }), 'slug', /pattern/],
    ['a slug with a dot', spec({ slug: 'ac.me' }), 'slug', /pattern/],
    ['an empty slug', spec({ slug: '' }), 'slug', /fewer than 1/],
    ['a 57-character slug', spec({ slug: chars(57) }), 'slug', /more than 56/],
    ['no slug', { identity: { enabled: true } }, 'slug', /is required/],
    ['no identity', { slug: 'acme' }, 'identity', /is required/],
    ['identity without enabled', spec({ identity: {} }), 'identity.enabled', /is required/],
    [
      'the identity service disabled',
      spec({ identity: { enabled: false } }),
      'identity.enabled',
      /identity service must be enabled/,
    ],
    ['an empty display name', spec({ displayName: '' }), 'displayName', /fewer than 1/],
    ['a 201-character display name', spec({ displayName: chars(201) }), 'displayName', /200/],
    [
      'a non-boolean dedicated switch',
      spec({ database: { dedicated: 'yes' } }),
      'database.dedicated',
      /boolean/,
    ],
    ['an unknown spec field', spec({ region: 'eu' }), 'region', /not a known field/],
    [
      'an unknown identity field',
      spec({ identity: { enabled: true, provider: 'x' } }),
      'identity.provider',
      /not a known field/,
    ],
  ];
  for (const [what, input, path, message] of badSpecs) {
    it(`refuses a spec with ${what} at ${path}`, function () {
      assertRefused(validateTenantLifecycleSpec(input), path, message);
    });
  }

  const object = (extra: Record<string, unknown> = {}) => ({
    apiVersion: API_VERSION,
    kind: 'TenantLifecycle',
    metadata: { name: 'acme', uid: 'u-1', managedFields: [{ manager: 'kubectl' }] },
    spec: spec(),
    ...extra,
  });

  it('accepts a whole object whose metadata carries fields it does not model', function () {
    const value = assertAccepted(validateTenantLifecycle(object()));
    assert.equal(value.metadata.name, 'acme');
    assert.deepEqual(value.spec.database, { dedicated: false });
  });

  const badObjects: BadCase[] = [
    ['another kind', object({ kind: 'McpServer' }), 'kind', /TenantLifecycle/],
    ['another apiVersion', object({ apiVersion: 'v1' }), 'apiVersion', /aiplane\.io\/v1alpha1/],
    ['no spec', { ...object(), spec: undefined }, 'spec', /is required/],
    ['a bad slug', object({ spec: spec({ slug: 'A' }) }), 'spec.slug', /pattern/],
    ['an unknown top-level field', object({ extra: 1 }), 'extra', /not a known field/],
  ];
  for (const [what, input, path, message] of badObjects) {
    it(`refuses an object with ${what} at ${path}`, function () {
      assertRefused(validateTenantLifecycle(input), path, message);
    });
  }

  it('accepts a full status with per-service readiness and a null database', function () {
    const status = {
      phase: 'Ready',
      stage: 'Ready',
      observedGeneration: 2,
      conditions: [condition(), condition({ type: 'IdentityReady' })],
      services: { identity: { ready: true, organizationId: 'org-1' }, database: null },
      organizationId: 'org-1',
      lastUpdateTime: '2025-01-02T03:04:05.123Z',
    };
    assert.deepEqual(assertAccepted(validateTenantLifecycleStatus(status)), status);
  });

  const badStatuses: BadCase[] = [
    ['an unknown phase', { phase: 'Running' }, 'phase', /must be one of: Pending/],
    ['an unknown stage', { stage: 'Network' }, 'stage', /must be one of: Accepted/],
    ['a negative generation', { observedGeneration: -1 }, 'observedGeneration', />= 0/],
    ['a fractional generation', { observedGeneration: 1.5 }, 'observedGeneration', /integer/],
    [
      'two conditions of the same type',
      { conditions: [condition(), condition()] },
      'conditions[1]',
      /duplicate entry for type/,
    ],
    [
      'a condition status outside True/False/Unknown',
      { conditions: [condition({ status: 'Maybe' })] },
      'conditions[0].status',
      /must be one of: True, False, Unknown/,
    ],
    [
      'a condition without a type',
      { conditions: [condition({ type: undefined })] },
      'conditions[0].type',
      /is required/,
    ],
    [
      'a transition time that is not a timestamp',
      { conditions: [condition({ lastTransitionTime: 'yesterday' })] },
      'conditions[0].lastTransitionTime',
      /date-time/,
    ],
    [
      'a reason with spaces',
      { conditions: [condition({ reason: 'not ready' })] },
      'conditions[0].reason',
      /pattern/,
    ],
    [
      'a non-boolean identity readiness',
      { services: { identity: { ready: 'yes' } } },
      'services.identity.ready',
      /boolean/,
    ],
    ['an unknown status field', { health: 'ok' }, 'health', /not a known field/],
  ];
  for (const [what, input, path, message] of badStatuses) {
    it(`refuses a status with ${what} at ${path}`, function () {
      assertRefused(validateTenantLifecycleStatus(input), path, message);
    });
  }
});
