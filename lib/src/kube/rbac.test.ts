import assert from 'node:assert/strict';
import { mergeRules } from './rbac.js';

describe('mergeRules', () => {
  it('merges verbs per group and resource, sorted, one rule each', () => {
    assert.deepEqual(
      mergeRules(
        [{ apiGroups: [''], resources: ['secrets', 'services'], verbs: ['get'] }],
        [{ apiGroups: [''], resources: ['secrets'], verbs: ['create', 'get'] }],
        [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['watch', 'list'] }],
      ),
      [
        { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'get'] },
        { apiGroups: [''], resources: ['services'], verbs: ['get'] },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'watch'] },
      ],
    );
  });

  it('keeps a rule limited to named objects apart from the unlimited one', () => {
    assert.deepEqual(
      mergeRules(
        [
          {
            apiGroups: ['r'],
            resources: ['clusterroles'],
            verbs: ['bind'],
            resourceNames: ['b', 'a'],
          },
        ],
        [{ apiGroups: ['r'], resources: ['clusterroles'], verbs: ['get'] }],
        [
          {
            apiGroups: ['r'],
            resources: ['clusterroles'],
            verbs: ['bind'],
            resourceNames: ['a', 'b'],
          },
        ],
      ),
      [
        { apiGroups: ['r'], resources: ['clusterroles'], verbs: ['get'] },
        {
          apiGroups: ['r'],
          resources: ['clusterroles'],
          resourceNames: ['a', 'b'],
          verbs: ['bind'],
        },
      ],
    );
  });
});
