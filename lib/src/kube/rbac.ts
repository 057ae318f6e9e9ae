/** One RBAC rule, as a ClusterRole lists it. Declared next to the code that needs it. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  /**
   * Only these objects. A name starting with `RELEASE_PREFIX` names an object of the chart's
   * release: the chart renders it as `<release>-<rest>`.
   */
  resourceNames?: string[];
}

/** Marks a resource name as the release's own object (`<release>-api-tenant`). */
export const RELEASE_PREFIX = '<release>-';

/**
 * The union of rule lists, normalised: one rule per (apiGroup, resource, resourceNames) with its
 * verbs merged and sorted, rules sorted, so a generated ClusterRole is stable and reviewable. A
 * rule limited to some names stays apart from the unlimited one of the same resource.
 */
export function mergeRules(...lists: readonly (readonly PolicyRule[])[]): PolicyRule[] {
  type Entry = { group: string; resource: string; names: string[]; verbs: Set<string> };
  const byKey = new Map<string, Entry>();
  for (const rule of lists.flat()) {
    const names = [...new Set(rule.resourceNames ?? [])].sort();
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const key = `${group}\0${resource}\0${names.join('\0')}`;
        const entry = byKey.get(key) ?? { group, resource, names, verbs: new Set<string>() };
        for (const verb of rule.verbs) entry.verbs.add(verb);
        byKey.set(key, entry);
      }
    }
  }
  return [...byKey.values()]
    .sort(
      (a, b) =>
        a.group.localeCompare(b.group) ||
        a.resource.localeCompare(b.resource) ||
        a.names.join(',').localeCompare(b.names.join(',')),
    )
    .map((e) => ({
      apiGroups: [e.group],
      resources: [e.resource],
      ...(e.names.length > 0 ? { resourceNames: e.names } : {}),
      verbs: [...e.verbs].sort(),
    }));
}
