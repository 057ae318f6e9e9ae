import type { KubernetesObject } from '@kubernetes/client-node';

/** Identifies an object in caches and work queues: `namespace/name`, or `name` when cluster-scoped. */
export function objectKey(obj: KubernetesObject): string {
  const name = obj.metadata?.name ?? '';
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key made by {@link objectKey}. */
export function parseObjectKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  if (slash < 0) return { name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
