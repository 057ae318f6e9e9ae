import type { PolicyRule } from '@aiplane/lib';

/** What the runtime needs everywhere: Events on the objects it reconciles, in any namespace. */
export const RUNTIME_RULES: readonly PolicyRule[] = [
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

/** Leader election: its Lease lives in the operator's own namespace, so a Role there grants it. */
export const LEADER_ELECTION_RULES: readonly PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
];
