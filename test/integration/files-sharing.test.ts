import assert from 'node:assert/strict';
import {
  assertCode,
  assertValidationFailed,
  call,
  createApiKey,
  keycloak,
  type TestApi,
} from './api-helpers.js';
import {
  type Acting,
  createFolder,
  type FileNode,
  fileWithStatus,
  namesIn,
  setGroupMember,
  shareWith,
  unique,
  uploadText,
  type GroupedFilesSuite,
  startGroupedFilesSuite,
} from './files-helpers.js';
import { kcAdmin } from './keycloak-admin.js';

const NAME = 'files-sharing';

describe('files sharing: nobody sees what was not shared with them; user and group shares, recursive folder shares, revocation at once, scopes, the RAG picker', function () {
  this.timeout(120_000);
  let suite: GroupedFilesSuite | undefined;
  let api: TestApi;
  let acme: string;
  let groupId: string;
  /** The owner of the files. */
  let a: Acting;
  /** Another member of acme. */
  let b: Acting;
  /** A member of acme in the group (given can_access_api there for the suite). */
  let c: Acting;
  const users = () => keycloak().users;

  before(async function () {
    suite = await startGroupedFilesSuite(NAME, 'files-team');
    ({ api, acme, groupId, member: a, admin: b, outsider: c } = suite);
  });

  after(async function () {
    await suite?.close();
  });

  /** Everywhere a file shared with the caller is found (not `root:mine`: it is not theirs). */
  const SHARED_SIGHTINGS = ['root:all', 'root:shared_with_me', 'search', 'picker', 'get'];
  /** Where a caller may find a file: root listings (each scope), search, the picker, by id. */
  const sightings = async (who: Acting, file: FileNode): Promise<string[]> => {
    const seen: string[] = [];
    for (const scope of ['all', 'mine', 'shared_with_me']) {
      if ((await namesIn(who, `/v1/files/children?scope=${scope}`)).includes(file.name))
        seen.push(`root:${scope}`);
    }
    if ((await namesIn(who, `/v1/files/search?q=${file.name}`)).includes(file.name))
      seen.push('search');
    if ((await namesIn(who, '/v1/files/rag-picker')).includes(file.name)) seen.push('picker');
    if ((await who.call('GET', `/v1/files/${file.id}`)).status === 200) seen.push('get');
    return seen;
  };

  it('never shows a member another member’s unshared file: not in children, search or the RAG picker, and 404 by id for every route', async function () {
    const secret = await uploadText(a, 'secret-plan.txt', 'the plan');
    await fileWithStatus(a, secret.id, 'RAG Available');
    assert.deepEqual(await sightings(a, secret), [
      'root:all',
      'root:mine',
      'search',
      'picker',
      'get',
    ]);
    assert.deepEqual(await sightings(b, secret), []);
    assert.deepEqual(await sightings(c, secret), []);
    for (const [method, path, body] of [
      ['GET', `/v1/files/${secret.id}/content`],
      ['PATCH', `/v1/files/${secret.id}`, { name: 'mine-now.txt' }],
      ['POST', `/v1/files/${secret.id}/move`, { folder_id: null }],
      ['DELETE', `/v1/files/${secret.id}`],
      ['GET', `/v1/files/${secret.id}/shares`],
      [
        'POST',
        `/v1/files/${secret.id}/shares`,
        { target_type: 'user', target_id: users().admin.id, role: 'owner' },
      ],
    ] as const) {
      assertCode(await b.call(method, path, body), 404, 'file_not_found');
    }
    const hidden = await createFolder(a, 'hidden-folder');
    assertCode(
      await b.call('GET', `/v1/files/children?folder_id=${hidden.id}`),
      404,
      'folder_not_found',
    );
    assertCode(
      await b.call('POST', '/v1/folders', { name: 'intruder', folder_id: hidden.id }),
      404,
      'folder_not_found',
    );
    assert.equal(
      (await a.call('GET', `/v1/files/${secret.id}`)).status,
      200,
      'the owner still reads it',
    );
  });

  it('a viewer share lets the user read the file (listings, search, picker, bytes) but not change it; removing the share revokes it at once', async function () {
    const f = await uploadText(a, 'shared-notes.txt', 'notes');
    await fileWithStatus(a, f.id, 'RAG Available');
    const shared = await shareWith(a, `/v1/files/${f.id}`, 'user', users().admin.id, 'viewer');
    assert.equal(shared.status, 200, shared.text);
    assert.deepEqual(await sightings(b, f), SHARED_SIGHTINGS);
    assert.equal(((await b.call('GET', `/v1/files/${f.id}`)).json() as FileNode).role, 'viewer');
    assert.equal((await b.call('GET', `/v1/files/${f.id}/content`)).text, 'notes');
    assertCode(
      await b.call('PATCH', `/v1/files/${f.id}`, { name: 'x.txt' }),
      403,
      'file_access_denied',
    );
    assertCode(await b.call('DELETE', `/v1/files/${f.id}`), 403, 'file_access_denied');
    assertCode(await b.call('GET', `/v1/files/${f.id}/shares`), 403, 'file_access_denied');
    assert.deepEqual(await sightings(c, f), [], 'a user share reaches that user only');

    const removed = await a.call('DELETE', `/v1/files/${f.id}/shares/user/${users().admin.id}`);
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await sightings(b, f), []);
    assertCode(await b.call('GET', `/v1/files/${f.id}/content`), 404, 'file_not_found');
    assertCode(
      await a.call('DELETE', `/v1/files/${f.id}/shares/user/${users().admin.id}`),
      404,
      'share_not_found',
    );
  });

  it('a folder share reaches everything beneath it; an editor adds and renames there but deletes nothing; what they added stays theirs after the share goes', async function () {
    const proj = await createFolder(a, 'project');
    const sub = await createFolder(a, 'sub', proj.id);
    const deep = await uploadText(a, 'deep.txt', 'deep', sub.id);
    await fileWithStatus(a, deep.id, 'RAG Available');
    const r = await shareWith(a, `/v1/folders/${proj.id}`, 'user', users().admin.id, 'editor');
    assert.equal(r.status, 200, r.text);

    // The top of the share is at B's root; what is inside is in its folders.
    const root = await namesIn(b, '/v1/files/children');
    assert.ok(
      root.includes('project') && !root.includes('sub') && !root.includes('deep.txt'),
      root.join(),
    );
    assert.deepEqual(await namesIn(b, `/v1/files/children?folder_id=${proj.id}`), ['sub']);
    const inSub = await b.call('GET', `/v1/files/children?folder_id=${sub.id}`);
    assert.deepEqual(
      (inSub.json() as { items: FileNode[] }).items.map((n) => [n.name, n.role]),
      [['deep.txt', 'editor']],
    );
    assert.ok((await namesIn(b, '/v1/files/rag-picker')).includes('deep.txt'));
    assert.ok((await namesIn(b, '/v1/files/search?q=deep')).includes('deep.txt'));

    const added = await uploadText(b, 'from-b.txt', 'b wrote this', sub.id);
    const renamed = await b.call('PATCH', `/v1/files/${deep.id}`, { name: 'deeper.txt' });
    assert.equal(renamed.status, 200, renamed.text);
    assertCode(await b.call('DELETE', `/v1/files/${deep.id}`), 403, 'file_access_denied');
    assertCode(await b.call('DELETE', `/v1/folders/${sub.id}`), 403, 'file_access_denied');
    assertCode(
      await b.call('POST', `/v1/folders/${sub.id}/move`, { folder_id: null }),
      403,
      'file_access_denied',
    );
    // A owns the folder, so A holds owner on B's file in it; B's scopes split by owner.
    const forA = await a.call('GET', `/v1/files/${added.id}`);
    assert.equal((forA.json() as FileNode).role, 'owner');
    assert.deepEqual(await namesIn(b, `/v1/files/children?folder_id=${sub.id}&scope=mine`), [
      'from-b.txt',
    ]);
    assert.deepEqual(
      await namesIn(b, `/v1/files/children?folder_id=${sub.id}&scope=shared_with_me`),
      ['deeper.txt'],
    );

    assert.equal(
      (await a.call('DELETE', `/v1/folders/${proj.id}/shares/user/${users().admin.id}`)).status,
      204,
    );
    assertCode(await b.call('GET', `/v1/files/${deep.id}`), 404, 'file_not_found');
    assertCode(
      await b.call('GET', `/v1/files/children?folder_id=${sub.id}`),
      404,
      'folder_not_found',
    );
    assert.ok(!(await namesIn(b, '/v1/files/rag-picker')).includes('deeper.txt'));
    // B's own file, in a folder B no longer reads, shows at B's root.
    assert.ok((await namesIn(b, '/v1/files/children?scope=mine')).includes('from-b.txt'));
  });

  it('a group share reaches the group’s members only; leaving the group or removing the share revokes it', async function () {
    const f = await uploadText(a, 'team-handbook.txt', 'for the team');
    await fileWithStatus(a, f.id, 'RAG Available');
    const r = await shareWith(a, `/v1/files/${f.id}`, 'group', groupId, 'viewer');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await sightings(c, f), SHARED_SIGHTINGS);
    assert.deepEqual(await sightings(b, f), [], 'not a member of the group');

    await setGroupMember(acme, groupId, users().outsider.id, false);
    try {
      assert.deepEqual(await sightings(c, f), []);
    } finally {
      await setGroupMember(acme, groupId, users().outsider.id, true);
    }
    assert.ok((await sightings(c, f)).includes('get'));
    assert.equal((await a.call('DELETE', `/v1/files/${f.id}/shares/group/${groupId}`)).status, 204);
    assert.deepEqual(await sightings(c, f), []);
  });

  it('a group share reaches the members of its subgroups too; leaving the subgroup revokes it', async function () {
    const sub = await kcAdmin(`/organizations/${acme}/groups/${groupId}/children`, {
      method: 'POST',
      body: { name: unique('subteam') },
    });
    assert.equal(sub.status, 201, await sub.text());
    const subId = sub.headers.get('location')?.split('/').pop() ?? '';
    try {
      const f = await uploadText(a, 'whole-department.txt', 'for the department and below');
      await fileWithStatus(a, f.id, 'RAG Available');
      assert.equal(
        (await shareWith(a, `/v1/files/${f.id}`, 'group', groupId, 'viewer')).status,
        200,
      );
      assert.deepEqual(await sightings(b, f), [], 'not yet in the subgroup');
      await setGroupMember(acme, subId, users().admin.id, true);
      assert.deepEqual(await sightings(b, f), SHARED_SIGHTINGS);
      await setGroupMember(acme, subId, users().admin.id, false);
      assert.deepEqual(await sightings(b, f), []);
    } finally {
      await kcAdmin(`/organizations/${acme}/groups/${subId}`, { method: 'DELETE' });
    }
  });

  it('the share panel is for owners; an Owner by share may share and delete; sharing again changes the role; targets must be members or groups of the organization (422 naming target_id)', async function () {
    const f = await uploadText(a, 'panel.txt', 'x');
    const share = (user: 'admin' | 'outsider', role: string) =>
      a.call('POST', `/v1/files/${f.id}/shares`, {
        target_type: 'user',
        target_id: users()[user].id,
        role,
      });
    assert.equal((await share('admin', 'viewer')).status, 200);
    const changed = await share('admin', 'owner');
    assert.equal(changed.status, 200, changed.text);
    const list = await a.call('GET', `/v1/files/${f.id}/shares`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      (list.json() as { shares: { target_id: string; role: string }[] }).shares.map((s) => [
        s.target_id,
        s.role,
      ]),
      [[users().admin.id, 'owner']],
    );
    // B, an Owner by share, opens the panel and shares on.
    assert.equal((await b.call('GET', `/v1/files/${f.id}/shares`)).status, 200);
    const onward = await shareWith(b, `/v1/files/${f.id}`, 'user', users().outsider.id, 'viewer');
    assert.equal(onward.status, 200, onward.text);
    assertCode(await c.call('GET', `/v1/files/${f.id}/shares`), 403, 'file_access_denied');

    assertValidationFailed(
      await shareWith(a, `/v1/files/${f.id}`, 'user', users().nobody.id, 'viewer'),
      'target_id',
    );
    assertValidationFailed(
      await shareWith(
        a,
        `/v1/files/${f.id}`,
        'group',
        '00000000-0000-4000-8000-000000000000',
        'viewer',
      ),
      'target_id',
    );
    assertValidationFailed(
      await shareWith(a, `/v1/files/${f.id}`, 'user', users().admin.id, 'admin'),
      'role',
    );
    assert.equal(
      (await b.call('DELETE', `/v1/files/${f.id}`)).status,
      204,
      'an Owner by share deletes',
    );
    assertCode(await a.call('GET', `/v1/files/${f.id}`), 404, 'file_not_found');
  });

  it('an API key acts with its owner’s shares, and loses them with the share', async function () {
    const f = await uploadText(a, unique('keyed') + '.txt', 'for a key');
    const key = await createApiKey(api.url, 'admin', unique('files-key'));
    const viaKey = (path: string) =>
      call(`${api.url}${path}`, { headers: { 'x-api-key': key, 'x-aiplane-organization': acme } });
    assertCode(await viaKey(`/v1/files/${f.id}`), 404, 'file_not_found');
    const r = await shareWith(a, `/v1/files/${f.id}`, 'user', users().admin.id, 'viewer');
    assert.equal(r.status, 200, r.text);
    const got = await viaKey(`/v1/files/${f.id}`);
    assert.equal(got.status, 200, got.text);
    assert.equal((got.json() as FileNode).role, 'viewer');
    assert.equal(
      (await a.call('DELETE', `/v1/files/${f.id}/shares/user/${users().admin.id}`)).status,
      204,
    );
    assertCode(await viaKey(`/v1/files/${f.id}`), 404, 'file_not_found');
  });

  it('scope: mine is what the caller owns, shared_with_me what others shared, all (the default) both', async function () {
    const own = await uploadText(b, unique('b-own') + '.txt', 'b');
    const theirs = await uploadText(a, unique('a-shared') + '.txt', 'a');
    const r = await shareWith(a, `/v1/files/${theirs.id}`, 'user', users().admin.id, 'viewer');
    assert.equal(r.status, 200, r.text);
    const names = async (q: string) => namesIn(b, `/v1/files/children${q}`);
    const all = await names('');
    assert.ok(all.includes(own.name) && all.includes(theirs.name), all.join());
    assert.deepEqual(await names('?scope=all'), all);
    const mine = await names('?scope=mine');
    assert.ok(mine.includes(own.name) && !mine.includes(theirs.name), mine.join());
    const shared = await names('?scope=shared_with_me');
    assert.ok(!shared.includes(own.name) && shared.includes(theirs.name), shared.join());
    const search = async (scope: string) => namesIn(b, `/v1/files/search?q=.txt&scope=${scope}`);
    assert.ok((await search('mine')).every((n) => !n.startsWith('a-shared')));
    assert.ok((await search('shared_with_me')).every((n) => !n.startsWith('b-own')));
  });
});
