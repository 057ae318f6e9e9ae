import type { Principal } from '@aiplane/lib/auth';
import { ApiError, ValidationFailed } from '@aiplane/lib/errors';
import type { SharingDirectory } from './directory.js';
import type { Caller } from './roles.js';
import type { ShareInput } from './share-schemas.js';
import type { Share, ShareStore } from './share-store.js';

/**
 * The share panel of one kind of thing, once the caller was found allowed to open it: the list,
 * sharing with a member or a group of the organization (checked in the identity provider), and
 * removing a share. Files, folders and agents share this one behaviour (docs/adr/0032, 0035).
 */
export class Shares {
  constructor(
    private readonly store: ShareStore,
    private readonly directory: SharingDirectory,
  ) {}

  list(subjectId: string): Promise<Share[]> {
    return this.store.list(subjectId);
  }

  /**
   * Shares the thing with a member or a group of the caller's organization, or changes the
   * role of its share; anyone else is 422 naming `target_id`.
   */
  async put(caller: Caller, subjectId: string, input: ShareInput): Promise<Share> {
    const targetId = input.target_id.toLowerCase();
    const known =
      input.target_type === 'user'
        ? await this.directory.isMember(caller.organizationId, targetId)
        : await this.directory.isGroup(caller.organizationId, targetId);
    if (!known) {
      throw new ValidationFailed([
        {
          field: 'target_id',
          message:
            input.target_type === 'user'
              ? 'is not a member of the organization'
              : 'is not a group of the organization',
        },
      ]);
    }
    return this.store.put(
      subjectId,
      caller.organizationId,
      { target_type: input.target_type, target_id: targetId, role: input.role },
      caller.userId,
    );
  }

  /** Removes a share (404 `share_not_found` when there is none); its access ends with it. */
  async remove(subjectId: string, what: string, targetType: string, targetId: string) {
    const removed =
      (targetType === 'user' || targetType === 'group') &&
      (await this.store.remove(subjectId, targetType, targetId.toLowerCase()));
    if (!removed) {
      throw new ApiError(
        'share_not_found',
        `this ${what} has no share for ${targetType} ${targetId}`,
      );
    }
  }
}

/** The caller acting in an organization, with their groups there (the identity provider's). */
export async function callerIn(
  directory: SharingDirectory,
  principal: Principal,
  organizationId: string,
): Promise<Caller> {
  return {
    organizationId,
    userId: principal.userId,
    groupIds: await directory.groupsOf(organizationId, principal.userId),
  };
}
