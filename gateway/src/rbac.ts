import { GROUP } from '@aiplane/crds';
import { mergeRules, type PolicyRule } from '@aiplane/lib';

/** What the gateway reads: which server an id is, and which namespace is whose. */
export const GATEWAY_RULES: readonly PolicyRule[] = mergeRules([
  {
    apiGroups: [GROUP],
    resources: ['mcpservers', 'tenantlifecycles'],
    verbs: ['get', 'list', 'watch'],
  },
]);
