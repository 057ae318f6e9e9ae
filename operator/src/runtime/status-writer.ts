import {
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesObject,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { statusEqual } from './conditions.js';
import { ConflictError, isConflict, isNotFound } from '@aiplane/lib';

/** Which custom object's `/status` to write. */
export interface StatusTarget {
  group: string;
  version: string;
  plural: string;
  name: string;
  /** Absent for cluster-scoped kinds. */
  namespace?: string;
  /**
   * When set, the patch carries it as a precondition: the apiserver answers 409 if the object
   * changed since it was read, so a status computed from a stale object is never written.
   */
  resourceVersion?: string;
}

export type PatchStatusResult<T> =
  { outcome: 'unchanged' } | { outcome: 'patched'; object: T } | { outcome: 'gone' };

export interface PatchStatusOptions {
  fieldManager?: string;
}

function isKubeConfig(client: KubeConfig | CustomObjectsApi): client is KubeConfig {
  return typeof (client as Partial<KubeConfig>).makeApiClient === 'function';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An RFC 7386 merge patch that turns `current` into `desired` while sending the whole desired
 * value: every desired field is present, and a field only in `current` is set to `null`
 * (removed), recursively through nested objects. Arrays are replaced whole.
 */
export function replacingMergePatch(current: unknown, desired: unknown): unknown {
  if (!isPlainObject(desired)) return desired ?? null;
  const patch: Record<string, unknown> = {};
  const before = isPlainObject(current) ? current : {};
  for (const [key, value] of Object.entries(desired)) {
    if (value === undefined) continue;
    patch[key] = isPlainObject(value) ? replacingMergePatch(before[key], value) : value;
  }
  for (const key of Object.keys(before)) {
    if (!(key in patch)) patch[key] = null;
  }
  return patch;
}

/**
 * Writes `desired` as the object's status through the `/status` subresource, unless it already
 * equals `current` (then no request at all). Uses `application/merge-patch+json`: custom
 * resources refuse strategic merge, and client-node's generated `patch*CustomObjectStatus`
 * would otherwise send `application/json-patch+json`. A 404 (object gone) is not an error; a
 * 409 (precondition failed) throws {@link ConflictError} so the caller requeues.
 */
export async function patchStatus<T extends KubernetesObject = KubernetesObject>(
  client: KubeConfig | CustomObjectsApi,
  target: StatusTarget,
  desired: Record<string, unknown>,
  current: unknown,
  options: PatchStatusOptions = {},
): Promise<PatchStatusResult<T>> {
  if (statusEqual(desired, current)) return { outcome: 'unchanged' };
  const api = isKubeConfig(client) ? client.makeApiClient(CustomObjectsApi) : client;
  const body = {
    ...(target.resourceVersion ? { metadata: { resourceVersion: target.resourceVersion } } : {}),
    status: replacingMergePatch(current, desired),
  };
  const common = {
    group: target.group,
    version: target.version,
    plural: target.plural,
    name: target.name,
    body,
    fieldManager: options.fieldManager,
  };
  const headers = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  try {
    const object = (
      target.namespace === undefined
        ? await api.patchClusterCustomObjectStatus(common, headers)
        : await api.patchNamespacedCustomObjectStatus(
            { ...common, namespace: target.namespace },
            headers,
          )
    ) as T;
    return { outcome: 'patched', object };
  } catch (err) {
    if (isNotFound(err)) return { outcome: 'gone' };
    if (isConflict(err)) {
      throw new ConflictError(`status of ${target.plural}/${target.name} changed meanwhile`, {
        cause: err,
      });
    }
    throw err;
  }
}
