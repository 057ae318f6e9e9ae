import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Principal } from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import { isUuid } from '@aiplane/lib/service';
import type { SharingDirectory } from '../sharing/directory.js';
import { type Caller, ROLE_RANK, type Role, roleName } from '../sharing/roles.js';
import type { ShareInput } from '../sharing/share-schemas.js';
import type { Share } from '../sharing/share-store.js';
import { callerIn, type Shares } from '../sharing/shares.js';
import type { BlobStore } from './files-blob-store.js';
import { PROCESSING_QUEUE } from './files-processing.js';
import type { JobStore } from './files-queue-store.js';
import { checkName, type FileList, type FileNode, listView, nodeView } from './files-schemas.js';
import type { FilesStore, NodeKind, NodeRow, Page, Scope } from './files-store.js';
import type { UploadParts } from './files-upload.js';
import type { FoldersStore } from './folders-store.js';
import type { SharingStore } from './sharing-store.js';

export interface FilesOptions {
  nodes: FilesStore;
  tree: FoldersStore;
  sharing: SharingStore;
  /** The nodes' share panels (knowledge_shares). */
  shares: Shares;
  jobs: JobStore;
  blobs: BlobStore;
  directory: SharingDirectory;
  /** Processing attempts per file. */
  attempts: number;
  /** Called after a file was queued for processing (the queue looks for work at once). */
  queued: () => void;
}

const notFound = (kind: NodeKind, id: string) =>
  kind === 'file'
    ? new ApiError('file_not_found', `no file you may read has id ${id}`)
    : new ApiError('folder_not_found', `no folder you may read has id ${id}`);

/**
 * Files and folders of an organization, each owned by a user and shared with users or groups
 * (docs/adr/0032). A node the caller may not read is absent (404), never forbidden; a change
 * their role does not allow is 403 `file_access_denied`.
 */
export class Files {
  constructor(private readonly o: FilesOptions) {}

  /** The caller acting in an organization, with their groups there. */
  async caller(principal: Principal, organizationId: string): Promise<Caller> {
    return callerIn(this.o.directory, principal, organizationId);
  }

  /** A node of `kind` the caller reads, with their role rank on it; else 404. */
  async found(
    caller: Caller,
    kind: NodeKind,
    id: string,
  ): Promise<{ node: NodeRow; rank: number }> {
    const node = isUuid(id)
      ? await this.o.nodes.get(caller.organizationId, id.toLowerCase())
      : undefined;
    const rank = node?.kind === kind ? await this.o.sharing.rankOn(caller, node.id) : 0;
    if (!node || rank === 0) throw notFound(kind, id);
    return { node, rank };
  }

  /** The node, when the caller holds at least `role` on it; 404 or 403 else. */
  private async holding(caller: Caller, kind: NodeKind, id: string, role: Role, doing: string) {
    const got = await this.found(caller, kind, id);
    if (got.rank < ROLE_RANK[role]) {
      throw new ApiError(
        'file_access_denied',
        `${doing} needs the ${role} role on this ${kind}; yours is ${roleName(got.rank)}`,
      );
    }
    return got;
  }

  /** Where a write puts something: a folder the caller edits, or their root (null). */
  private async destination(caller: Caller, folderId: string | null, doing: string) {
    if (folderId === null) return null;
    return (await this.holding(caller, 'folder', folderId, 'editor', doing)).node;
  }

  async get(caller: Caller, kind: NodeKind, id: string): Promise<FileNode> {
    const { node, rank } = await this.found(caller, kind, id);
    return nodeView(node, rank);
  }

  /** The file's bytes (viewer or better). */
  async content(caller: Caller, id: string): Promise<{ node: NodeRow; stream: Readable }> {
    const { node } = await this.found(caller, 'file', id);
    const stream = node.blob_key ? await this.o.blobs.open(node.blob_key) : undefined;
    if (!stream) throw new ApiError('file_content_missing', `the bytes of file ${id} are missing`);
    return { node, stream };
  }

  /**
   * Stores an uploaded file (its bytes staged already) in a folder the caller edits or their
   * root, `uploaded`, and queues its processing in the same transaction. Refused uploads leave
   * nothing: the staged bytes are discarded, a blob committed before a refused insert removed.
   */
  async upload(caller: Caller, parts: UploadParts): Promise<FileNode> {
    let key: string | undefined;
    try {
      checkName(parts.name);
      const parent = await this.destination(caller, parts.folderId, 'uploading into a folder');
      key = await parts.staged.commit();
      const id = randomUUID();
      const row = await this.o.tree.insert(
        {
          id,
          organization_id: caller.organizationId,
          owner_id: caller.userId,
          parent_id: parent?.id ?? null,
          kind: 'file',
          name: parts.name,
          blob_key: key,
          media_type: parts.mediaType.slice(0, 255),
          size_bytes: parts.staged.size,
          sha256: parts.staged.sha256,
          status: 'uploaded',
        },
        (trx) =>
          this.o.jobs.enqueue(trx, {
            queue: PROCESSING_QUEUE,
            organizationId: caller.organizationId,
            nodeId: id,
            maxAttempts: this.o.attempts,
          }),
      );
      this.o.queued();
      return nodeView(row, ROLE_RANK.owner);
    } catch (err) {
      // A blob store failing here too leaves the bytes to the orphan sweep; the cause is answered.
      if (key === undefined) await parts.staged.discard().catch(() => undefined);
      else await this.o.blobs.remove(key).catch(() => undefined);
      throw err;
    }
  }

  async createFolder(caller: Caller, name: string, folderId: string | null): Promise<FileNode> {
    checkName(name);
    const parent = await this.destination(caller, folderId, 'creating a folder in a folder');
    const row = await this.o.tree.insert({
      id: randomUUID(),
      organization_id: caller.organizationId,
      owner_id: caller.userId,
      parent_id: parent?.id ?? null,
      kind: 'folder',
      name,
    });
    return nodeView(row, ROLE_RANK.owner);
  }

  /** Renames a file or folder (editor or better). */
  async rename(caller: Caller, kind: NodeKind, id: string, name: string): Promise<FileNode> {
    checkName(name);
    const { node, rank } = await this.holding(caller, kind, id, 'editor', 'renaming');
    const row = await this.o.tree.rename(caller.organizationId, node.id, name);
    if (!row) throw notFound(kind, id);
    return nodeView(row, rank);
  }

  /**
   * Moves a file or folder (editor or better on it) into a folder the caller edits; to the
   * root (null) only its owner, or an Owner by share, moves it (it goes to its owner's root).
   */
  async move(
    caller: Caller,
    kind: NodeKind,
    id: string,
    folderId: string | null,
  ): Promise<FileNode> {
    const { node } = await this.holding(caller, kind, id, 'editor', 'moving');
    if (folderId === null) {
      await this.holding(caller, kind, id, 'owner', 'moving to the root');
    }
    const parent = await this.destination(caller, folderId, 'moving into a folder');
    const row = await this.o.tree.move(
      caller.organizationId,
      node.id,
      parent?.id ?? null,
      node.name,
    );
    if (!row) throw notFound(kind, id);
    return nodeView(row, await this.o.sharing.rankOn(caller, row.id));
  }

  /** Deletes a file, or a folder with everything in it (owner); the blobs go after the commit. */
  async delete(caller: Caller, kind: NodeKind, id: string): Promise<void> {
    const { node } = await this.holding(caller, kind, id, 'owner', 'deleting');
    const keys = await this.o.tree.delete(caller.organizationId, node.id);
    // The rows are gone: a blob the store fails to remove now is one no file names, which the
    // orphan sweep removes after its grace period (docs/adr/0032).
    for (const key of keys ?? []) await this.o.blobs.remove(key).catch(() => undefined);
  }

  /** A folder's children, or the caller's root (folder null), as `scope` says. */
  async children(
    caller: Caller,
    folderId: string | null,
    scope: Scope,
    page: Page,
  ): Promise<FileList> {
    if (folderId === null) {
      return listView(await this.o.nodes.rootOf(caller, scope, page), page.limit);
    }
    const { node, rank } = await this.found(caller, 'folder', folderId);
    return listView(await this.o.nodes.childrenOf(caller, node.id, rank, scope, page), page.limit);
  }

  async search(
    caller: Caller,
    text: string,
    kind: NodeKind | undefined,
    scope: Scope,
    page: Page,
  ): Promise<FileList> {
    return listView(await this.o.nodes.search(caller, text, scope, kind, page), page.limit);
  }

  /** Files the caller reads that are `RAG Available` (the chat's RAG picker). */
  async ragPicker(caller: Caller, scope: Scope, page: Page): Promise<FileList> {
    return listView(await this.o.nodes.ragAvailable(caller, scope, page), page.limit);
  }

  /** The share panel: only a node's owners (its owner, or an Owner by share) see it. */
  async shares(caller: Caller, kind: NodeKind, id: string): Promise<Share[]> {
    const { node } = await this.holding(caller, kind, id, 'owner', 'seeing the shares');
    return this.o.shares.list(node.id);
  }

  /** Shares a node with a member or a group of the organization (or changes the role). */
  async share(caller: Caller, kind: NodeKind, id: string, input: ShareInput): Promise<Share> {
    const { node } = await this.holding(caller, kind, id, 'owner', 'sharing');
    return this.o.shares.put(caller, node.id, input);
  }

  /** Removes a share; access through it ends with this answer. */
  async unshare(
    caller: Caller,
    kind: NodeKind,
    id: string,
    targetType: string,
    targetId: string,
  ): Promise<void> {
    const { node } = await this.holding(caller, kind, id, 'owner', 'removing a share');
    await this.o.shares.remove(node.id, kind, targetType, targetId);
  }
}
