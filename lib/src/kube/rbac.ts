/** One RBAC rule, as a ClusterRole lists it. Declared next to the code that needs it. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/**
 * The union of rule lists, normalised: one rule per (apiGroup, resource) with its verbs
 * merged and sorted, rules sorted, so a generated ClusterRole is stable and reviewable.
 */
export function mergeRules(...lists: readonly (readonly PolicyRule[])[]): PolicyRule[] {
  const byKey = new Map<string, { group: string; resource: string; verbs: Set<string> }>();
  for (const rule of lists.flat()) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const key = `${group}\0${resource}`;
        const entry = byKey.get(key) ?? { group, resource, verbs: new Set<string>() };
        for (const verb of rule.verbs) entry.verbs.add(verb);
        byKey.set(key, entry);
      }
    }
  }
  return [...byKey.values()]
    .sort((a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource))
    .map((e) => ({ apiGroups: [e.group], resources: [e.resource], verbs: [...e.verbs].sort() }));
}
