// What the files suites share: callers acting in acme, uploads, listings and waiting for a status.
import assert from 'node:assert/strict';
import { waitFor } from '@aiplane/hack';
import {
  call,
  cachedToken,
  replyOf,
  type DevUser,
  type Reply,
  type TestUser,
} from './api-helpers.js';
import type { Call } from './fixtures/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keycloak, startTestApi, type TestApi } from './api-helpers.js';
import { kcAdmin, setPermissionsIn } from './keycloak-admin.js';

export interface FileNode {
  id: string;
  kind: 'file' | 'folder';
  name: string;
  folder_id: string | null;
  owner_id: string;
  role: 'viewer' | 'editor' | 'owner';
  media_type: string | null;
  size_bytes: number | null;
  sha256: string | null;
  status: string | null;
  status_reason: string | null;
  chunk_count: number | null;
}
export interface FileList {
  items: FileNode[];
  count: number;
  next_cursor: string | null;
}

/** A dev user acting in an organization of the API at `url`. */
export interface Acting {
  call: Call;
  /** POST /v1/files with a multipart body of these parts (strings, or a file part). */
  upload(
    parts: Record<string, string | { data: string | Uint8Array; filename: string; type?: string }>,
  ): Promise<Reply>;
}

export function acting(url: string, user: DevUser | TestUser, organizationId: string): Acting {
  const headers = async () => ({
    authorization: `Bearer ${await cachedToken(user)}`,
    'x-aiplane-organization': organizationId,
  });
  return {
    call: async (method, path, body) =>
      call(`${url}${path}`, { method, body, headers: await headers() }),
    upload: async (parts) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(parts)) {
        if (typeof value === 'string') form.append(name, value);
        else
          form.append(
            name,
            new Blob([value.data], { type: value.type ?? 'text/plain' }),
            value.filename,
          );
      }
      return replyOf(
        await fetch(`${url}/v1/files`, { method: 'POST', body: form, headers: await headers() }),
      );
    },
  };
}

/** Uploads a text file, which must answer 201 `uploaded`. */
export async function uploadText(
  who: Acting,
  name: string,
  text: string,
  folderId: string | null = null,
): Promise<FileNode> {
  const r = await who.upload({
    folder_id: folderId ?? 'null',
    file: { data: text, filename: name },
  });
  assert.equal(r.status, 201, r.text);
  const file = r.json() as FileNode;
  assert.equal(r.headers.get('location'), `/v1/files/${file.id}`);
  return file;
}

/** Creates a folder, which must answer 201. */
export async function createFolder(
  who: Acting,
  name: string,
  folderId: string | null = null,
): Promise<FileNode> {
  const r = await who.call('POST', '/v1/folders', { name, folder_id: folderId });
  assert.equal(r.status, 201, r.text);
  return r.json() as FileNode;
}

/** POST {node}/shares: shares the node (`/v1/files/{id}` or `/v1/folders/{id}`) as `who`. */
export function shareWith(
  who: Acting,
  node: string,
  targetType: 'user' | 'group',
  targetId: string,
  role: string,
): Promise<Reply> {
  return who.call('POST', `${node}/shares`, { target_type: targetType, target_id: targetId, role });
}

/** A listing that must answer 200. */
export async function listing(who: Acting, path: string): Promise<FileList> {
  const r = await who.call('GET', path);
  assert.equal(r.status, 200, r.text);
  return r.json() as FileList;
}

/** The names a listing holds (one page). */
export async function namesIn(who: Acting, path: string): Promise<string[]> {
  return (await listing(who, path)).items.map((n) => n.name);
}

/** Polls the file until its status is `status` (bounded); the file then. */
export async function fileWithStatus(who: Acting, id: string, status: string): Promise<FileNode> {
  let last: FileNode | undefined;
  await waitFor(`file ${id} to be ${status}`, async () => {
    const r = await who.call('GET', `/v1/files/${id}`);
    assert.equal(r.status, 200, r.text);
    last = r.json() as FileNode;
    return last.status === status;
  });
  return last!;
}

/** A name no other run's file has. */
export function unique(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Creates a group of the organization (Keycloak organization groups); its id. */
export async function createGroup(organizationId: string, name: string): Promise<string> {
  const res = await kcAdmin(`/organizations/${organizationId}/groups`, {
    method: 'POST',
    body: { name },
  });
  assert.equal(res.status, 201, await res.text());
  const id = res.headers.get('location')?.split('/').pop();
  assert.ok(id);
  return id;
}

export async function setGroupMember(
  organizationId: string,
  groupId: string,
  userId: string,
  member: boolean,
) {
  const res = await kcAdmin(
    `/organizations/${organizationId}/groups/${groupId}/members/${userId}`,
    {
      method: member ? 'PUT' : 'DELETE',
      body: member ? {} : undefined,
    },
  );
  assert.ok(res.ok, `${res.status} ${await res.text()}`);
}

/**
 * A suite's API with a files directory of its own, acting in acme: `member`, `admin`, and
 * `outsider` given can_access_api there and put in a new group (`groupId`). Groups are read at
 * once (no cache of a caller's groups). `close` undoes all of it.
 */
export interface GroupedFilesSuite {
  api: TestApi;
  acme: string;
  groupId: string;
  member: Acting;
  admin: Acting;
  outsider: Acting;
  close(): Promise<void>;
}

export async function startGroupedFilesSuite(
  name: string,
  groupPrefix: string,
  /** More of the API's environment. */
  env: Record<string, string> = {},
): Promise<GroupedFilesSuite> {
  const store = await mkdtemp(join(tmpdir(), `aiplane-${name}-`));
  const acme = keycloak().organization.id;
  const outsiderId = keycloak().users.outsider.id;
  await setPermissionsIn(acme, outsiderId, ['can_access_api']);
  const groupId = await createGroup(acme, unique(groupPrefix));
  await setGroupMember(acme, groupId, outsiderId, true);
  const api = await startTestApi(name, {
    AIPLANE_FILES_DIR: store,
    AIPLANE_IDP_ACCESS_CACHE_SECONDS: '0',
    ...env,
  });
  return {
    api,
    acme,
    groupId,
    member: acting(api.url, 'member', acme),
    admin: acting(api.url, 'admin', acme),
    outsider: acting(api.url, 'outsider', acme),
    close: async () => {
      await api.close();
      await kcAdmin(`/organizations/${acme}/groups/${groupId}`, { method: 'DELETE' });
      await setPermissionsIn(acme, outsiderId, []);
      await rm(store, { recursive: true, force: true });
    },
  };
}
