import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertCode,
  assertValidationFailed,
  keycloak,
  ORG_SCOPE,
  startTestApi,
  tokenFor,
  type TestApi,
} from './api-helpers.js';
import {
  acting,
  type Acting,
  createFolder,
  type FileList,
  type FileNode,
  listing,
  namesIn,
  uploadText,
} from './files-helpers.js';

const NAME = 'files';
const MAX_BYTES = 64 * 1024;

/** Every blob file under the store (committed and staged). */
async function blobFiles(dir: string): Promise<string[]> {
  const found = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return found.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('files and folders: upload, folders, folder_id, names, moves, delete, listings', function () {
  this.timeout(120_000);
  let api: TestApi;
  let store: string;
  let a: Acting;

  before(async function () {
    store = await mkdtemp(join(tmpdir(), 'aiplane-files-'));
    api = await startTestApi(NAME, {
      AIPLANE_FILES_DIR: store,
      AIPLANE_FILES_MAX_BYTES: String(MAX_BYTES),
    });
    a = acting(api.url, 'member', keycloak().organization.id);
  });

  after(async function () {
    await api?.close();
    await rm(store, { recursive: true, force: true });
  });

  it('uploads a multipart file to the root and into a folder: 201 uploaded with size and sha256; its bytes come back as an attachment', async function () {
    const text = 'Hello, files.\n';
    const root = await uploadText(a, 'hello.txt', text);
    assert.equal(root.kind, 'file');
    assert.equal(root.folder_id, null);
    assert.equal(root.role, 'owner');
    assert.equal(root.owner_id, keycloak().users.member.id);
    assert.equal(root.size_bytes, Buffer.byteLength(text));
    assert.equal(root.sha256, createHash('sha256').update(text).digest('hex'));
    assert.equal(root.media_type, 'text/plain');
    assert.ok(
      ['uploaded', 'processing', 'RAG Available'].includes(root.status ?? ''),
      root.status ?? '',
    );

    const docs = await createFolder(a, 'docs');
    const r = await a.upload({
      folder_id: docs.id,
      name: 'renamed.md',
      file: { data: '# title', filename: 'original.md', type: 'text/markdown' },
    });
    assert.equal(r.status, 201, r.text);
    const inDocs = r.json() as FileNode;
    assert.equal(inDocs.name, 'renamed.md', 'the name field wins over the filename');
    assert.equal(inDocs.folder_id, docs.id);

    const res = await fetch(`${api.url}/v1/files/${root.id}/content`, {
      headers: {
        authorization: `Bearer ${await tokenFor('member', ORG_SCOPE)}`,
        'x-aiplane-organization': keycloak().organization.id,
      },
    });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), text);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('content-disposition'), `attachment; filename*=UTF-8''hello.txt`);
  });

  it('refuses folder_path with 422 naming folder_id on upload, create folder, move file and move folder', async function () {
    const folder = await createFolder(a, 'fp-folder');
    const file = await uploadText(a, 'fp.txt', 'x');
    assertValidationFailed(
      await a.upload({ folder_path: '/docs', file: { data: 'x', filename: 'fp2.txt' } }),
      'folder_id',
    );
    assertValidationFailed(
      await a.upload({
        folder_id: 'null',
        folder_path: '/',
        file: { data: 'x', filename: 'fp3.txt' },
      }),
      'folder_id',
    );
    assertValidationFailed(
      await a.call('POST', '/v1/folders', { name: 'fp-new', folder_path: '/docs' }),
      'folder_id',
    );
    assertValidationFailed(
      await a.call('POST', `/v1/files/${file.id}/move`, { folder_path: '/fp-folder' }),
      'folder_id',
    );
    assertValidationFailed(
      await a.call('POST', `/v1/folders/${folder.id}/move`, { folder_path: '/', folder_id: null }),
      'folder_id',
    );
    assert.deepEqual(
      (await namesIn(a, '/v1/files/search?q=fp')).sort(),
      ['fp-folder', 'fp.txt'],
      'nothing was written by the refused requests',
    );
  });

  it('requires folder_id (a UUID or null) on every write: 422 naming folder_id', async function () {
    const file = await uploadText(a, 'req.txt', 'x');
    assertValidationFailed(
      await a.upload({ file: { data: 'x', filename: 'nofolder.txt' } }),
      'folder_id',
    );
    assertValidationFailed(
      await a.upload({ folder_id: 'docs', file: { data: 'x', filename: 'badfolder.txt' } }),
      'folder_id',
    );
    assertValidationFailed(await a.call('POST', '/v1/folders', { name: 'no-parent' }), 'folder_id');
    assertValidationFailed(
      await a.call('POST', '/v1/folders', { name: 'bad-parent', folder_id: 'root' }),
      'folder_id',
    );
    assertValidationFailed(await a.call('POST', `/v1/files/${file.id}/move`, {}), 'folder_id');
    assertValidationFailed(await a.upload({ folder_id: 'null' }), 'file');
    assertCode(
      await a.call('POST', '/v1/folders', {
        name: 'ghost-parent',
        folder_id: '00000000-0000-4000-8000-000000000000',
      }),
      404,
      'folder_not_found',
    );
  });

  it('refuses bad names with 422 naming name', async function () {
    for (const name of ['', ' padded', 'a/b', 'a\\b', '..', 'x'.repeat(256), 'tab\there']) {
      assertValidationFailed(
        await a.call('POST', '/v1/folders', { name, folder_id: null }),
        'name',
      );
    }
  });

  it('keeps names unique per folder (any case, files and folders alike): 409 file_name_conflict on create, upload, rename and move; the same name elsewhere is fine', async function () {
    const box = await createFolder(a, 'box');
    const other = await createFolder(a, 'other');
    await uploadText(a, 'Report.txt', 'one', box.id);
    const before = (await blobFiles(store)).length;
    const dup = await a.upload({
      folder_id: box.id,
      file: { data: 'two', filename: 'report.TXT' },
    });
    assertCode(dup, 409, 'file_name_conflict');
    assert.equal((await blobFiles(store)).length, before, 'the refused upload left no bytes');
    assertCode(
      await a.call('POST', '/v1/folders', { name: 'REPORT.txt', folder_id: box.id }),
      409,
      'file_name_conflict',
    );
    assertCode(
      await a.call('POST', '/v1/folders', { name: 'box', folder_id: null }),
      409,
      'file_name_conflict',
    );
    const second = await uploadText(a, 'second.txt', 'x', box.id);
    assertCode(
      await a.call('PATCH', `/v1/files/${second.id}`, { name: 'report.txt' }),
      409,
      'file_name_conflict',
    );
    const elsewhere = await uploadText(a, 'report.txt', 'x', other.id);
    assertCode(
      await a.call('POST', `/v1/files/${elsewhere.id}/move`, { folder_id: box.id }),
      409,
      'file_name_conflict',
    );
    assert.deepEqual(await namesIn(a, `/v1/files/children?folder_id=${box.id}`), [
      'Report.txt',
      'second.txt',
    ]);
  });

  it('moves files and folders; a folder into itself or a descendant is 409 folder_move_cycle', async function () {
    const top = await createFolder(a, 'top');
    const mid = await createFolder(a, 'mid', top.id);
    const low = await createFolder(a, 'low', mid.id);
    const f = await uploadText(a, 'moving.txt', 'x');

    const moved = await a.call('POST', `/v1/files/${f.id}/move`, { folder_id: low.id });
    assert.equal(moved.status, 200, moved.text);
    assert.equal((moved.json() as FileNode).folder_id, low.id);
    assert.deepEqual(await namesIn(a, `/v1/files/children?folder_id=${low.id}`), ['moving.txt']);

    for (const into of [top, mid, low]) {
      assertCode(
        await a.call('POST', `/v1/folders/${top.id}/move`, { folder_id: into.id }),
        409,
        'folder_move_cycle',
      );
    }
    assertCode(
      await a.call('POST', `/v1/folders/${mid.id}/move`, { folder_id: low.id }),
      409,
      'folder_move_cycle',
    );
    // A folder to the root, and back down into an unrelated folder.
    const toRoot = await a.call('POST', `/v1/folders/${low.id}/move`, { folder_id: null });
    assert.equal(toRoot.status, 200, toRoot.text);
    assert.equal((toRoot.json() as FileNode).folder_id, null);
    const down = await a.call('POST', `/v1/folders/${mid.id}/move`, { folder_id: low.id });
    assert.equal(down.status, 200, down.text);
    assert.deepEqual(await namesIn(a, `/v1/files/children?folder_id=${low.id}`), [
      'mid',
      'moving.txt',
    ]);
    // A file's id is no folder to move into.
    assertCode(
      await a.call('POST', `/v1/folders/${top.id}/move`, { folder_id: f.id }),
      404,
      'folder_not_found',
    );
  });

  it('renames, and deletes a file or a folder with everything beneath it, bytes included', async function () {
    const tree = await createFolder(a, 'tree');
    const branch = await createFolder(a, 'branch', tree.id);
    const leaf = await uploadText(a, 'leaf.txt', 'leaf', branch.id);
    const solo = await uploadText(a, 'solo.txt', 'solo');
    const renamed = await a.call('PATCH', `/v1/folders/${branch.id}`, { name: 'limb' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal((renamed.json() as FileNode).name, 'limb');
    const blobsBefore = (await blobFiles(store)).length;

    assert.equal((await a.call('DELETE', `/v1/files/${solo.id}`)).status, 204);
    assertCode(await a.call('GET', `/v1/files/${solo.id}`), 404, 'file_not_found');
    assert.equal((await a.call('DELETE', `/v1/folders/${tree.id}`)).status, 204);
    assertCode(await a.call('GET', `/v1/files/${leaf.id}`), 404, 'file_not_found');
    assertCode(await a.call('GET', `/v1/folders/${branch.id}`), 404, 'folder_not_found');
    assert.equal((await blobFiles(store)).length, blobsBefore - 2, 'both files’ bytes are gone');
  });

  it('answers 404 for unknown ids, ids that are not UUIDs, and a folder asked for as a file', async function () {
    const folder = await createFolder(a, 'not-a-file');
    assertCode(
      await a.call('GET', '/v1/files/00000000-0000-4000-8000-000000000000'),
      404,
      'file_not_found',
    );
    assertCode(await a.call('GET', '/v1/files/nope'), 404, 'file_not_found');
    assertCode(await a.call('GET', `/v1/files/${folder.id}`), 404, 'file_not_found');
    assertCode(await a.call('DELETE', `/v1/files/${folder.id}`), 404, 'file_not_found');
  });

  it('lists children folders first then by name, a page at a time with next_cursor; bad limits and cursors are 422', async function () {
    const page = await createFolder(a, 'paging');
    for (const n of ['b.txt', 'A.txt', 'c.txt']) await uploadText(a, n, n, page.id);
    for (const n of ['zeta', 'Alpha']) await createFolder(a, n, page.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `/v1/files/children?folder_id=${page.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const got: FileList = await listing(a, q);
      assert.ok(got.count <= 2);
      seen.push(...got.items.map((n) => n.name));
      cursor = got.next_cursor;
      pages++;
    } while (cursor);
    assert.deepEqual(seen, ['Alpha', 'zeta', 'A.txt', 'b.txt', 'c.txt']);
    assert.equal(pages, 3);
    assertValidationFailed(await a.call('GET', '/v1/files/children?limit=0'), 'limit');
    assertValidationFailed(await a.call('GET', '/v1/files/children?limit=201'), 'limit');
    assertValidationFailed(await a.call('GET', '/v1/files/children?cursor=garbage'), 'cursor');
    assertValidationFailed(await a.call('GET', '/v1/files/children?folder_id=x'), 'folder_id');
    assertValidationFailed(await a.call('GET', '/v1/files/children?scope=everyone'), 'scope');
  });

  it('searches names (any case, % and _ taken literally), files or folders only, paginated', async function () {
    const s = await createFolder(a, 'Searchable-dir');
    await uploadText(a, 'searchable-one.txt', 'x', s.id);
    await uploadText(a, 'SEARCHABLE_two.txt', 'x');
    await uploadText(a, 'searchable%3.txt', 'x');
    assert.deepEqual(await namesIn(a, '/v1/files/search?q=searchable'), [
      'Searchable-dir',
      'searchable%3.txt',
      'searchable-one.txt',
      'SEARCHABLE_two.txt',
    ]);
    assert.deepEqual(await namesIn(a, '/v1/files/search?q=searchable&kind=folder'), [
      'Searchable-dir',
    ]);
    assert.deepEqual(await namesIn(a, '/v1/files/search?q=e_t'), ['SEARCHABLE_two.txt']);
    assert.deepEqual(await namesIn(a, `/v1/files/search?q=${encodeURIComponent('%')}`), [
      'searchable%3.txt',
    ]);
    const first = await listing(a, '/v1/files/search?q=searchable&limit=3');
    assert.equal(first.count, 3);
    const rest = await listing(
      a,
      `/v1/files/search?q=searchable&limit=3&cursor=${first.next_cursor}`,
    );
    assert.deepEqual(
      rest.items.map((n) => n.name),
      ['SEARCHABLE_two.txt'],
    );
    assert.equal(rest.next_cursor, null);
    assertValidationFailed(await a.call('GET', '/v1/files/search'), 'q');
  });

  it('refuses a file over AIPLANE_FILES_MAX_BYTES with 413 request_too_large and keeps nothing; a body that is not multipart is 415', async function () {
    const before = await blobFiles(store);
    const big = await a.upload({
      folder_id: 'null',
      file: {
        data: new Uint8Array(MAX_BYTES + 1),
        filename: 'big.bin',
        type: 'application/octet-stream',
      },
    });
    assertCode(big, 413, 'request_too_large');
    assert.deepEqual(await blobFiles(store), before, 'no staged or committed bytes stay');
    assert.deepEqual(await namesIn(a, '/v1/files/search?q=big.bin'), []);
    assertCode(
      await a.call('POST', '/v1/files', { folder_id: null, name: 'x.txt' }),
      415,
      'unsupported_media_type',
    );
  });
});
