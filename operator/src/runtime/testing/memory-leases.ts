import { ApiException, type V1Lease } from '@kubernetes/client-node';
import type { LeaseClient } from '../lease-client.js';

/** Leases in memory with the apiserver's compare-and-swap on resourceVersion. */
export class MemoryLeases implements LeaseClient {
  lease: V1Lease | undefined;
  failing = false;
  writes = 0;
  private version = 0;

  read(_namespace?: string, _name?: string, _signal?: AbortSignal): Promise<V1Lease | undefined> {
    if (this.failing) return Promise.reject(new TypeError('fetch failed'));
    return Promise.resolve(this.lease && structuredClone(this.lease));
  }
  create(_namespace: string, lease: V1Lease, _signal?: AbortSignal): Promise<V1Lease> {
    if (this.failing) return Promise.reject(new TypeError('fetch failed'));
    if (this.lease) return Promise.reject(new ApiException(409, 'AlreadyExists', '', {}));
    return Promise.resolve(this.store(lease));
  }
  replace(
    _namespace: string,
    _name: string,
    lease: V1Lease,
    _signal?: AbortSignal,
  ): Promise<V1Lease> {
    if (this.failing) return Promise.reject(new TypeError('fetch failed'));
    if (lease.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) {
      return Promise.reject(new ApiException(409, 'Conflict', '', {}));
    }
    return Promise.resolve(this.store(lease));
  }
  private store(lease: V1Lease): V1Lease {
    this.writes++;
    this.lease = JSON.parse(JSON.stringify(lease)) as V1Lease;
    this.lease.metadata = { ...this.lease.metadata, resourceVersion: String(++this.version) };
    return structuredClone(this.lease);
  }
}
