import {
  CoordinationV1Api,
  type KubeConfig,
  type ObservableMiddleware,
  Observable,
  type V1Lease,
} from '@kubernetes/client-node';
import { isNotFound } from '@aiplane/lib';

/** The three Lease calls leader election needs; {@link coordinationLeaseClient} is the real one. */
export interface LeaseClient {
  /** The lease, or `undefined` when it does not exist. */
  read(namespace: string, name: string, signal?: AbortSignal): Promise<V1Lease | undefined>;
  /** Creates the lease; a 409 means someone else created it first. */
  create(namespace: string, lease: V1Lease, signal?: AbortSignal): Promise<V1Lease>;
  /** Replaces the lease; `metadata.resourceVersion` makes it a compare-and-swap (409 on a race). */
  replace(namespace: string, name: string, lease: V1Lease, signal?: AbortSignal): Promise<V1Lease>;
}

/** Request options that attach an AbortSignal (client-node 2.x has no per-call timeout). */
function withSignal(signal: AbortSignal | undefined) {
  if (!signal) return undefined;
  const middleware: ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' as const };
}

/** Leases through `coordination.k8s.io/v1`. */
export function coordinationLeaseClient(kc: KubeConfig): LeaseClient {
  const api = kc.makeApiClient(CoordinationV1Api);
  return {
    async read(namespace, name, signal) {
      try {
        return await api.readNamespacedLease({ namespace, name }, withSignal(signal));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    create: (namespace, body, signal) =>
      api.createNamespacedLease({ namespace, body }, withSignal(signal)),
    replace: (namespace, name, body, signal) =>
      api.replaceNamespacedLease({ namespace, name, body }, withSignal(signal)),
  };
}
