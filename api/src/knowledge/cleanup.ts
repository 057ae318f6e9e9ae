import type { Logger } from '@aiplane/lib';
import type { LiveScope } from '@aiplane/lib/store';
import type { KnowledgeCleanupStore } from './cleanup-store.js';
import type { BlobStore } from './files-blob-store.js';

/** Blobs looked up against the files' rows at a time. */
const BLOB_BATCH = 500;

/**
 * What goes when a tenant goes, and what a crash left behind (docs/adr/0032, "When a tenant
 * goes"): an organization's files, folders, shares, jobs, collections and blobs; blobs no file
 * names; staged bytes never committed. Idempotent (several replicas may do it at once), and
 * run by the API's tenant cleanup (the watch and its periodic sweep).
 */
export class KnowledgeCleanup {
  constructor(
    private readonly opts: {
      store: KnowledgeCleanupStore;
      blobs: BlobStore;
      logger: Logger;
    },
  ) {}

  /** Removes the organization's knowledge; answers how many rows and blobs went. */
  async removeOrganization(organizationId: string): Promise<number> {
    const { rows, blobKeys } = await this.opts.store.removeOrganization(organizationId);
    // After the commit: a crash before this leaves blobs no row names, for removeOrphanBlobs.
    for (const key of blobKeys) await this.opts.blobs.remove(key);
    return rows + blobKeys.length;
  }

  /** The sweep's part: the knowledge of organizations no live tenant records. */
  async removeOrganizationsNotIn(scope: LiveScope): Promise<number> {
    let removed = 0;
    for (const organizationId of await this.opts.store.organizationsNotIn(scope)) {
      removed += await this.removeOrganization(organizationId);
    }
    return removed;
  }

  /**
   * Removes blobs no file names, written more than `graceSeconds` ago (an upload commits its
   * blob a moment before its row), and staged bytes as old that were never committed; answers
   * how many went.
   */
  async removeOrphanBlobs(graceSeconds: number): Promise<number> {
    const before = new Date(Date.now() - graceSeconds * 1000);
    let removed = await this.opts.blobs.removeStaleStaged(before);
    let batch: string[] = [];
    const flush = async () => {
      const named = await this.opts.store.namedBlobs(batch);
      for (const key of batch) {
        if (named.has(key)) continue;
        await this.opts.blobs.remove(key);
        removed++;
      }
      batch = [];
    };
    for await (const key of this.opts.blobs.keysWrittenBefore(before)) {
      batch.push(key);
      if (batch.length >= BLOB_BATCH) await flush();
    }
    await flush();
    return removed;
  }
}
