import type { CustomObjectsApi, KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { StatusMemory } from './status-memory.js';
import { patchStatus, type PatchStatusResult } from './status-writer.js';

/** A kind of custom object whose status a controller writes, and how it writes it. */
export interface StatusKind {
  group: string;
  version: string;
  plural: string;
  /** A namespaced kind is written at its object's namespace. */
  namespaced: boolean;
  /**
   * Write only over the version the status was computed from: the object's resourceVersion goes
   * along as a precondition, so a stale copy gets a 409 (a requeue) and is never written.
   */
  precondition: boolean;
  fieldManager?: string;
}

/** The part of a custom object `writeStatus` reads. */
export interface StatusObject<S> {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
  status?: S;
}

/**
 * The one way a controller writes an object's status: `next` over the status the object
 * carries, through the `/status` subresource, and no request at all when they are equal
 * (see {@link patchStatus}: a vanished object answers `gone`, a failed precondition throws
 * a `ConflictError`). With `memory`, each write is remembered (see {@link StatusMemory}).
 */
export async function writeStatus<
  S extends Record<string, unknown>,
  T extends KubernetesObject = KubernetesObject,
>(
  client: KubeConfig | CustomObjectsApi,
  kind: StatusKind,
  object: StatusObject<S>,
  next: S,
  memory?: StatusMemory,
): Promise<PatchStatusResult<T>> {
  const { name = '', namespace, resourceVersion } = object.metadata;
  const key = kind.namespaced ? `${namespace ?? ''}/${name}` : name;
  memory?.begin(key);
  let result: PatchStatusResult<T>;
  try {
    result = await patchStatus<T>(
      client,
      {
        group: kind.group,
        version: kind.version,
        plural: kind.plural,
        name,
        ...(kind.namespaced ? { namespace: namespace ?? '' } : {}),
        ...(kind.precondition && resourceVersion ? { resourceVersion } : {}),
      },
      next,
      object.status ?? {},
      kind.fieldManager === undefined ? {} : { fieldManager: kind.fieldManager },
    );
  } catch (err) {
    memory?.abandon(key);
    throw err;
  }
  if (memory && result.outcome === 'patched' && resourceVersion !== undefined) {
    memory.remember(resourceVersion, result.object);
  } else {
    memory?.abandon(key);
  }
  return result;
}
