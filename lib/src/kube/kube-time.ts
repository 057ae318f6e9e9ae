/**
 * `metav1.Time` precision: whole seconds, UTC, `Z` suffix (what the apiserver writes, and what
 * conditions' `lastTransitionTime` and a status' `lastUpdateTime` carry).
 */
export function formatKubeTime(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z');
}
