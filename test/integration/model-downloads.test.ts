import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@aiplane/hack';
import {
  assertCode,
  assertValidationFailed,
  keycloak,
  ORG_SCOPE,
  startTestApi,
  tokenFor,
  type DevUser,
  type TestApi,
} from './api-helpers.js';
import { caller, type Call } from './fixtures/index.js';
import { setPermissionsIn } from './keycloak-admin.js';
import { generatedFile, ModelFileServer } from './model-file-server.js';
import { newSecret } from './secrets.js';

interface DownloadFile {
  path: string;
  url: string;
  status: string;
  bytes_done: number;
  bytes_total: number | null;
}
interface Download {
  id: string;
  model: string;
  status: string;
  error: string | null;
  bytes_done: number;
  bytes_total: number | null;
  files: DownloadFile[];
}

const NAME = 'model-downloads';
const MiB = 1024 * 1024;

describe('model-installer downloads: start, list while active, logs, complete, fail, cancel, resume after a restart', function () {
  this.timeout(120_000);
  let api: TestApi;
  let store: string;
  let acme: string;
  const files = new ModelFileServer();
  const env = () => ({
    AIPLANE_MODEL_STORE_DIR: store,
    AIPLANE_MODEL_DOWNLOAD_ALLOW_LOOPBACK_SOURCES: 'true',
  });
  const as = (user: DevUser): Call => caller(api.url, user, acme);
  const modelDir = (model: string) => join(store, acme, model);
  const record = async (id: string): Promise<Download> => {
    const r = await as('admin')('GET', `/v1/model-installer/downloads/${id}`);
    assert.equal(r.status, 200, r.text);
    return r.json() as Download;
  };
  const listed = async (): Promise<string[]> => {
    const r = await as('admin')('GET', '/v1/model-installer/downloads');
    assert.equal(r.status, 200, r.text);
    return (r.json() as { downloads: Download[] }).downloads.map((d) => d.id);
  };
  const start = async (body: unknown): Promise<Download> => {
    const r = await as('admin')('POST', '/v1/model-installer/downloads', body);
    assert.equal(r.status, 202, r.text);
    const d = r.json() as Download;
    assert.equal(r.headers.get('location'), `/v1/model-installer/downloads/${d.id}`);
    return d;
  };
  const until = async (id: string, status: string): Promise<Download> => {
    let last: Download | undefined;
    await waitFor(`download ${id} to be ${status}`, async () => {
      last = await record(id);
      return last.status === status;
    });
    return last!;
  };
  const sizeOf = async (file: string) => (await stat(file).catch(() => undefined))?.size;
  const logs = async (id: string) => {
    const r = await as('admin')('GET', `/v1/model-installer/downloads/${id}/logs`);
    assert.equal(r.status, 200, r.text);
    return r.json() as { lines: { time: string; message: string }[] };
  };

  before(async function () {
    store = await mkdtemp(join(tmpdir(), 'aiplane-models-'));
    await files.start();
    api = await startTestApi(NAME, env());
    acme = keycloak().organization.id;
  });

  after(async function () {
    await api?.close();
    await files.close();
    await rm(store, { recursive: true, force: true });
  });

  it('lists a download while it is active, with buffered log lines, and not once it completed; the file is on disk with the right bytes', async function () {
    const token = newSecret('signed-url-token');
    const a = generatedFile(1 * MiB);
    const url = `${files.add('/hf/tiny/model.bin', { data: a.data, ranges: true, holdAt: 256 * 1024 })}?token=${token}`;
    const d = await start({
      model: 'tiny',
      files: [{ url, path: 'weights/model.bin', sha256: a.sha256 }],
    });
    assert.ok(['queued', 'running'].includes(d.status), d.status);
    assert.equal(d.files[0]?.url, `${files.origin}/hf/tiny/model.bin?…`);

    // Active: progress is written while the source holds the rest back.
    await waitFor('progress to be written', async () => (await record(d.id)).bytes_done > 0);
    const running = await record(d.id);
    assert.equal(running.status, 'running');
    assert.equal(running.bytes_total, 1 * MiB);
    assert.ok((await listed()).includes(d.id));
    const buffered = await logs(d.id);
    assert.ok(
      buffered.lines.some((l) => l.message.startsWith('started')),
      JSON.stringify(buffered),
    );
    assert.ok(!JSON.stringify([running, buffered]).includes(token), 'the token is never shown');

    // Follow the log as SSE until the end.
    const stream = await fetch(`${api.url}/v1/model-installer/downloads/${d.id}/logs?follow=1`, {
      headers: {
        authorization: `Bearer ${await tokenFor('admin', ORG_SCOPE)}`,
        'x-aiplane-organization': acme,
      },
    });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    files.release();
    const events = await stream.text();
    assert.match(events, /event: line\ndata: \{"time":"[^"]+","message":"started/);
    assert.match(events, /event: end\ndata: \{"status":"completed"\}\n\n$/);

    const done = await until(d.id, 'completed');
    assert.equal(done.bytes_done, 1 * MiB);
    assert.deepEqual(
      done.files.map((f) => [f.path, f.status, f.bytes_done]),
      [['weights/model.bin', 'done', 1 * MiB]],
    );
    assert.ok(!(await listed()).includes(d.id), 'a completed download is not listed');
    assert.deepEqual(await logs(d.id), { lines: [] });
    assert.ok((await readFile(join(modelDir('tiny'), 'weights', 'model.bin'))).equals(a.data));
    assert.equal(await sizeOf(join(modelDir('tiny'), 'weights', '.model.bin.partial')), undefined);
  });

  it('fails a download whose sha256 does not match, removes the partial file, and no longer lists it', async function () {
    const a = generatedFile(64 * 1024);
    const d = await start({
      model: 'corrupt',
      files: [
        {
          url: files.add('/corrupt.bin', { data: a.data, ranges: true }),
          path: 'x.bin',
          sha256: '0'.repeat(64),
        },
      ],
    });
    const failed = await until(d.id, 'failed');
    assert.match(
      failed.error ?? '',
      /^x\.bin: sha256 mismatch: expected 0{64}, got [0-9a-f]{64}; the partial file was removed$/,
    );
    assert.equal(failed.files[0]?.status, 'failed');
    assert.ok(!(await listed()).includes(d.id));
    assert.deepEqual(await logs(d.id), { lines: [] });
    assert.equal(await sizeOf(join(modelDir('corrupt'), 'x.bin')), undefined);
    assert.equal(await sizeOf(join(modelDir('corrupt'), '.x.bin.partial')), undefined);
  });

  it('cancels an active download: it leaves the list, its partial file is removed, and a second cancel is 409', async function () {
    const a = generatedFile(1 * MiB);
    const d = await start({
      model: 'cancelled',
      files: [
        {
          url: files.add('/cancel.bin', { data: a.data, ranges: true, holdAt: 100_000 }),
          path: 'c.bin',
        },
      ],
    });
    const partial = join(modelDir('cancelled'), '.c.bin.partial');
    await waitFor(
      'the partial file to hold the first bytes',
      async () => (await sizeOf(partial)) === 100_000,
    );
    const r = await as('admin')('POST', `/v1/model-installer/downloads/${d.id}/cancel`);
    assert.equal(r.status, 200, r.text);
    assert.equal((r.json() as Download).status, 'cancelled');
    assert.ok(!(await listed()).includes(d.id));
    assert.equal(await sizeOf(partial), undefined, 'the partial file is gone');
    assert.deepEqual(await logs(d.id), { lines: [] });
    assertCode(
      await as('admin')('POST', `/v1/model-installer/downloads/${d.id}/cancel`),
      409,
      'model_download_not_active',
    );
    files.release();
  });

  it('resumes after an API restart: with Range from the bytes on disk where the source supports it, from byte 0 where it does not', async function () {
    const ranged = generatedFile(2 * MiB);
    const plain = generatedFile(1 * MiB);
    const rangedUrl = files.add('/resume/ranged.bin', {
      data: ranged.data,
      ranges: true,
      holdAt: 300_000,
    });
    const plainUrl = files.add('/resume/plain.bin', {
      data: plain.data,
      ranges: false,
      holdAt: 200_000,
    });
    const r1 = await start({
      model: 'resumed',
      files: [{ url: rangedUrl, path: 'r.bin', sha256: ranged.sha256 }],
    });
    const r2 = await start({
      model: 'restarted',
      files: [{ url: plainUrl, path: 'p.bin', sha256: plain.sha256 }],
    });
    const rangedPartial = join(modelDir('resumed'), '.r.bin.partial');
    const plainPartial = join(modelDir('restarted'), '.p.bin.partial');
    await waitFor(
      'both partial files to hold their first bytes',
      async () =>
        (await sizeOf(rangedPartial)) === 300_000 && (await sizeOf(plainPartial)) === 200_000,
    );

    await api.close();
    // The next answers go straight through.
    files.file('/resume/ranged.bin')!.holdAt = undefined;
    files.file('/resume/plain.bin')!.holdAt = undefined;
    const seen = files.requests.length;
    api = await startTestApi(NAME, env(), { databaseOf: NAME });

    await until(r1.id, 'completed');
    await until(r2.id, 'completed');
    const after = files.requests.slice(seen);
    assert.deepEqual(
      after.filter((r) => r.path === '/resume/ranged.bin').map((r) => r.range),
      ['bytes=300000-'],
    );
    assert.deepEqual(
      after.filter((r) => r.path === '/resume/plain.bin').map((r) => r.range),
      ['bytes=200000-'],
    );
    assert.ok((await readFile(join(modelDir('resumed'), 'r.bin'))).equals(ranged.data));
    assert.ok((await readFile(join(modelDir('restarted'), 'p.bin'))).equals(plain.data));
  });

  it('lets one replica of two on one database work a download, and stops it when the other replica cancels it', async function () {
    const second = await startTestApi(`${NAME}-replica`, env(), { databaseOf: NAME });
    try {
      const a = generatedFile(1 * MiB);
      const path = '/replicas/one.bin';
      const d = await start({
        model: 'replicas',
        files: [
          { url: files.add(path, { data: a.data, ranges: true, holdAt: 50_000 }), path: 'one.bin' },
        ],
      });
      const partial = join(modelDir('replicas'), '.one.bin.partial');
      await waitFor(
        'the partial file to hold the first bytes',
        async () => (await sizeOf(partial)) === 50_000,
      );
      // Both replicas look for work every 2 s; well past that, still one transfer.
      const other = caller(second.url, 'admin', acme);
      await waitFor('both replicas to have looked for work twice', async () => {
        const r = await other('GET', `/v1/model-installer/downloads/${d.id}`);
        return Date.now() - Date.parse((r.json() as { created_at: string }).created_at) > 4_500;
      });
      assert.equal(
        files.requests.filter((r) => r.path === path).length,
        1,
        'one replica fetches it',
      );
      const r = await other('POST', `/v1/model-installer/downloads/${d.id}/cancel`);
      assert.equal(r.status, 200, r.text);
      await waitFor(
        'the partial file to be removed',
        async () => (await sizeOf(partial)) === undefined,
      );
      assert.deepEqual(await logs(d.id), { lines: [] });
    } finally {
      files.release();
      await second.close();
    }
  });

  it('follows a redirect to another address, and fails one to a private address (checked at dial time)', async function () {
    const a = generatedFile(10_000);
    const target = files.add('/cdn/a.bin', { data: a.data, ranges: true });
    const ok = await start({
      model: 'redirected',
      files: [{ url: files.redirect('/go/a.bin', target), path: 'a.bin', sha256: a.sha256 }],
    });
    await until(ok.id, 'completed');
    assert.ok((await readFile(join(modelDir('redirected'), 'a.bin'))).equals(a.data));

    const bad = await start({
      model: 'redirected-private',
      files: [
        { url: files.redirect('/go/private.bin', 'http://10.20.30.40/model.bin'), path: 'a.bin' },
      ],
    });
    const failed = await until(bad.id, 'failed');
    assert.match(failed.error ?? '', /host_not_public/);
  });

  it('refuses sources that are not public: private, link-local, with a password (400 model_download_source_invalid)', async function () {
    for (const url of [
      'http://10.1.2.3/model.bin',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/model.bin',
      'https://user:pass@example.com/model.bin',
      'file:///etc/passwd',
    ]) {
      const r = await as('admin')('POST', '/v1/model-installer/downloads', {
        model: 'refused',
        files: [{ url, path: 'a.bin' }],
      });
      assertCode(r, 400, 'model_download_source_invalid');
      assert.match(
        (r.json() as { error: { message: string } }).error.message,
        /^files\[0\]\.url: /,
      );
    }
  });

  it('refuses a loopback source when the test allowance is off', async function () {
    const strict = await startTestApi(`${NAME}-strict`, { AIPLANE_MODEL_STORE_DIR: store });
    try {
      const r = await caller(strict.url, 'admin', acme)('POST', '/v1/model-installer/downloads', {
        model: 'loopback',
        files: [{ url: `${files.origin}/cdn/a.bin`, path: 'a.bin' }],
      });
      assertCode(r, 400, 'model_download_source_invalid');
      assert.match(r.text, /host_not_public/);
    } finally {
      await strict.close();
    }
  });

  it('answers 422 for a path that leaves the model’s directory, and stores nothing', async function () {
    const url = `${files.origin}/cdn/a.bin`;
    for (const path of [
      '../escape.bin',
      '/etc/passwd',
      'a/../../b.bin',
      './a.bin',
      '.hidden',
      'a\\..\\b',
    ]) {
      assertValidationFailed(
        await as('admin')('POST', '/v1/model-installer/downloads', {
          model: 'paths',
          files: [{ url, path }],
        }),
        'files[0].path',
      );
    }
    assertValidationFailed(
      await as('admin')('POST', '/v1/model-installer/downloads', {
        model: '..',
        files: [{ url, path: 'a.bin' }],
      }),
      'model',
    );
    assertValidationFailed(
      await as('admin')('POST', '/v1/model-installer/downloads', {
        model: 'paths',
        files: [
          { url, path: 'a.bin' },
          { url, path: 'a.bin' },
        ],
      }),
      'files[1].path',
    );
    assert.deepEqual(await listed(), []);
    assert.equal(await sizeOf(modelDir('paths')), undefined);
  });

  it('answers 409 for a second active download of a model, and 404 for an unknown id', async function () {
    const a = generatedFile(100_000);
    const url = files.add('/busy.bin', { data: a.data, ranges: true, holdAt: 1000 });
    const d = await start({ model: 'busy', files: [{ url, path: 'b.bin' }] });
    assertCode(
      await as('admin')('POST', '/v1/model-installer/downloads', {
        model: 'busy',
        files: [{ url, path: 'b.bin' }],
      }),
      409,
      'model_download_in_progress',
    );
    assert.equal(
      (await as('admin')('POST', `/v1/model-installer/downloads/${d.id}/cancel`)).status,
      200,
    );
    files.release();
    for (const id of ['5f1c8a40-1d7b-4c0e-9a7e-2f4d3c2b1a00', 'not-a-uuid']) {
      assertCode(
        await as('admin')('GET', `/v1/model-installer/downloads/${id}`),
        404,
        'model_download_not_found',
      );
      assertCode(
        await as('admin')('GET', `/v1/model-installer/downloads/${id}/logs`),
        404,
        'model_download_not_found',
      );
    }
  });

  it('needs can_manage_models in the organization for every route', async function () {
    const id = '5f1c8a40-1d7b-4c0e-9a7e-2f4d3c2b1a00';
    const body = { model: 'perm', files: [{ url: `${files.origin}/cdn/a.bin`, path: 'a.bin' }] };
    for (const [method, path] of [
      ['GET', '/v1/model-installer/downloads'],
      ['POST', '/v1/model-installer/downloads'],
      ['GET', `/v1/model-installer/downloads/${id}`],
      ['GET', `/v1/model-installer/downloads/${id}/logs`],
      ['POST', `/v1/model-installer/downloads/${id}/cancel`],
    ] as const) {
      const b = method === 'POST' ? body : undefined;
      assertCode(await as('member')(method, path, b), 403, 'permission_denied');
      assertCode(await as('outsider')(method, path, b), 403, 'permission_denied');
    }
    assert.equal((await as('admin')('GET', '/v1/model-installer/downloads')).status, 200);
    // Granted through acme's group (docs/adr/0022), the member may.
    const member = keycloak().users.member.id;
    await setPermissionsIn(acme, member, ['can_access_api', 'can_manage_models']);
    try {
      const r = await as('member')('GET', '/v1/model-installer/downloads');
      assert.equal(r.status, 200, r.text);
      const logs = await as('member')('GET', `/v1/model-installer/downloads/${id}/logs`);
      assertCode(logs, 404, 'model_download_not_found');
    } finally {
      await setPermissionsIn(acme, member, ['can_access_api']);
    }
  });
});
