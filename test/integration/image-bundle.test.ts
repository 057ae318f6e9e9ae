// The container image carries only dist/image (docs/adr/0013-container-image.md). These tests
// bundle into a directory outside the repository, where no node_modules can be found, and run
// each component from there against the local environment, as the image would.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { CoordinationV1Api } from '@kubernetes/client-node';
import {
  apiEnv,
  createDatabase,
  operatorEnv,
  repoRoot,
  startProcess,
  startS3Server,
  StopWaiting,
  waitFor,
  type ManagedProcess,
  type S3Server,
} from '@aiplane/hack';
import { makePdf } from '../../api/src/knowledge/test-pdf.js';
import { BUNDLED_MODEL_DIR, bundleImage, type BundleResult } from '../../hack/src/image/bundle.js';
import { call, keycloak, ORG_SCOPE, tokenFor } from './api-helpers.js';
import { acting, fileWithStatus, type FileNode } from './files-helpers.js';
import { environment, kubeConfig } from './harness.js';
import { uniqueName } from './kube-helpers.js';
import { rememberedSecrets, rememberSecret } from './secrets.js';

const USAGE = 'usage: aiplane <api|gateway|operator>';

/** What every process gets besides its configuration: no NODE_PATH, NODE_OPTIONS or HOME. */
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production' };

/** `dir` and its ancestors have no node_modules directory to resolve anything from. */
function assertNoNodeModulesAbove(dir: string): void {
  for (let d = dir; ; d = dirname(d)) {
    assert.ok(!existsSync(join(d, 'node_modules')), `${d} has a node_modules directory`);
    if (dirname(d) === d) return;
  }
}

function without(env: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([key]) => key !== name));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The `port` of the first JSON log line whose msg is `message`, if it was written yet. */
function loggedPort(logFile: string, message: string): number | undefined {
  if (!existsSync(logFile)) return undefined;
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === message && typeof entry.port === 'number') return entry.port;
  }
  return undefined;
}

const FILES_BUCKET = 'aiplane-image-files';

describe('the image bundle, run from a directory outside the repository', function () {
  let root: string | undefined;
  let image: string;
  let bundle: BundleResult;
  const procs: ManagedProcess[] = [];
  const leaseName = uniqueName('image-bundle');
  const identity = uniqueName('image-operator');
  let apiConfig: Record<string, string>;

  /** Runs `aiplane.mjs <args>` to its exit (30 s at most). */
  async function runToExit(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [join(image, 'aiplane.mjs'), ...args], {
      cwd: image,
      env: { ...BASE_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code] = (await once(child, 'close')) as [number | null];
    clearTimeout(timer);
    return { code, stdout, stderr };
  }

  /** Starts `aiplane.mjs <component>` in the background, logging to the run's log directory. */
  function start(component: string, env: Record<string, string>): ManagedProcess {
    const proc = startProcess({
      name: `image-${component}`,
      command: process.execPath,
      args: [join(image, 'aiplane.mjs'), component],
      env: { ...BASE_ENV, AIPLANE_LOG_LEVEL: 'debug', ...env },
      cwd: image,
      logFile: join(environment().controlPlane.logDir, `image-bundle-${component}.log`),
    });
    procs.push(proc);
    return proc;
  }

  /** The port `proc` logged with `message`; gives up at once when the process exits. */
  async function portOf(proc: ManagedProcess, message: string): Promise<number> {
    let port: number | undefined;
    await waitFor(`${proc.name} to log "${message}"`, () => {
      port = loggedPort(proc.logFile, message);
      if (port === undefined && proc.child.exitCode !== null) {
        throw new StopWaiting(`${proc.name} exited with ${proc.child.exitCode} (${proc.logFile})`);
      }
      return Promise.resolve(port !== undefined);
    });
    return port as number;
  }

  async function ready(url: string): Promise<void> {
    await waitFor(`${url} to answer 200`, async () => (await fetch(url)).status === 200);
  }

  /** The Lease's holder ('' when released). */
  async function leaseHolder(): Promise<string> {
    const api = kubeConfig().makeApiClient(CoordinationV1Api);
    const lease = await api.readNamespacedLease({ name: leaseName, namespace: 'default' });
    return lease.spec?.holderIdentity ?? '';
  }

  before(async function () {
    const dir = mkdtempSync(join(tmpdir(), 'aiplane-image-'));
    root = dir;
    image = join(dir, 'image');
    bundle = await bundleImage(image);
    const info = environment().info();
    keycloak(); // records the environment's secrets for the log sweep
    rememberSecret(info.postgres.password);
    rememberSecret(info.credentialKeys.split(':')[1]);
    apiConfig = apiEnv(info, await createDatabase(info, 'image_bundle', { fresh: true }));
  });

  after(async function () {
    try {
      await Promise.all(procs.map((p) => p.stop('SIGTERM', 10_000)));
      await kubeConfig()
        .makeApiClient(CoordinationV1Api)
        .deleteNamespacedLease({ name: leaseName, namespace: 'default' })
        .catch(() => undefined);
    } finally {
      if (root) rmSync(root, { recursive: true, force: true });
    }
  });

  it('holds the entry file, one file per component, shared chunks, the run-time entries, the native add-on, the documentation pages’ assets and the model: no source maps', function () {
    assert.ok(relative(repoRoot, image).startsWith('..'), 'bundled inside the repository');
    assertNoNodeModulesAbove(dirname(image));
    const files = filesUnder(image);
    const at = (prefix: string) => files.filter((f) => f.startsWith(prefix));
    assert.deepEqual(
      files.filter((f) => !/^(chunks|assets|node_modules|models)\//.test(f)),
      [
        'aiplane.mjs',
        'api.mjs',
        'gateway.mjs',
        'local-embedder-worker.js',
        'operator.mjs',
        'package.json',
      ],
    );
    assert.deepEqual(JSON.parse(readFileSync(join(image, 'package.json'), 'utf8')), {
      type: 'module',
    });
    assert.ok(at('chunks/').includes('chunks/pdf.worker.mjs'), at('chunks/').join(', '));
    assert.ok(
      at('chunks/').every((f) => f.endsWith('.mjs')),
      `unexpected files: ${at('chunks/').join(', ')}`,
    );
    assert.deepEqual(
      at('assets/').filter((f) => !f.startsWith('assets/portal/')),
      [
        'assets/scalar/standalone.js',
        'assets/swagger-ui/swagger-ui-bundle.js',
        'assets/swagger-ui/swagger-ui.css',
      ],
    );
    // The built portal: its page and its hashed scripts and styles (docs/adr/0037).
    const portal = at('assets/portal/');
    assert.ok(portal.includes('assets/portal/index.html'), portal.join(', '));
    assert.ok(
      portal.some((f) => /^assets\/portal\/assets\/index-[\w-]+\.js$/.test(f)),
      portal.join(', '),
    );
    assert.deepEqual(at('models/'), [
      `${BUNDLED_MODEL_DIR}/model.onnx`,
      `${BUNDLED_MODEL_DIR}/tokenizer.json`,
    ]);
    // onnxruntime-node for this machine's architecture only: its JavaScript, onnxruntime-common's,
    // their package.json files and the two native binaries.
    const modules = at('node_modules/');
    const native = modules.filter((f) => !f.endsWith('.js') && !f.endsWith('package.json'));
    assert.deepEqual(
      native.map((f) => f.replace(/napi-v\d+/, 'napi')),
      [
        `node_modules/onnxruntime-node/bin/napi/linux/${process.arch}/libonnxruntime.so.1`,
        `node_modules/onnxruntime-node/bin/napi/linux/${process.arch}/onnxruntime_binding.node`,
      ],
    );
    assert.ok(
      modules.every((f) => /^node_modules\/onnxruntime-(node|common)\//.test(f)),
      modules.join(', '),
    );
    assert.ok(modules.includes('node_modules/onnxruntime-node/dist/binding.js'));
    assert.deepEqual(
      files,
      bundle.files.map((f) => f.path).sort(),
      'bundleImage reports what it wrote',
    );
    assert.ok(existsSync(join(`${image}-debug`, 'meta.json')), 'no metafile beside the bundle');
    assert.ok(
      filesUnder(`${image}-debug`).some((f) => f.endsWith('.mjs.map')),
      'no source maps beside the bundle',
    );
    // The budget is for the JavaScript: 24 MiB until the knowledge engines came, which added
    // pdfjs's parser (chunks/pdf.worker.mjs, 2.3 MiB) and the embedding worker (0.1 MiB), then
    // 27 MiB until the S3 file store's AWS SDK (1.3 MiB, docs/adr/0038); the native add-on and
    // the model are pinned artifacts, checked by name above.
    const code = bundle.files.filter(
      (f) => /\.m?js$/.test(f.path) && /^(chunks\/)?[^/]+$/.test(f.path),
    );
    const mib = code.reduce((sum, f) => sum + f.bytes, 0) / 2 ** 20;
    assert.ok(mib < 28.5, `the bundle grew to ${mib.toFixed(1)} MiB`);
  });

  for (const args of [[], ['worker'], ['--help'], ['api', 'operator']]) {
    it(`prints the usage and exits 2 for ${JSON.stringify(args)}`, async function () {
      const r = await runToExit(args);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr, `${USAGE}\n`);
      assert.equal(r.stdout, '');
    });
  }

  /** A component, the configuration it gets (one required variable left out), the problem. */
  const misconfigured: [string, () => Record<string, string>, string][] = [
    ['api', () => without(apiConfig, 'AIPLANE_DATABASE_URL'), 'AIPLANE_DATABASE_URL is required'],
    [
      'gateway',
      () => without(apiConfig, 'AIPLANE_CREDENTIAL_KEYS'),
      'AIPLANE_CREDENTIAL_KEYS is required',
    ],
    [
      'operator',
      () => without(operatorEnv(environment().info()), 'AIPLANE_OPERATOR_IDP_CLIENT_SECRET'),
      'AIPLANE_OPERATOR_IDP_CLIENT_SECRET is required with AIPLANE_IDP_URL',
    ],
  ];
  for (const [component, env, problem] of misconfigured) {
    it(`exits 2 naming the problem when the ${component} misses a required variable`, async function () {
      const r = await runToExit([component], env());
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^invalid configuration:\n/);
      assert.ok(r.stderr.includes(problem), r.stderr);
      for (const secret of rememberedSecrets()) {
        assert.ok(!r.stderr.includes(secret), 'the error shows a secret');
      }
    });
  }

  describe('aiplane.mjs api', function () {
    let proc: ManagedProcess;
    let url: string;
    let s3: S3Server | undefined;
    let filesDir: string;

    before(async function () {
      // The model from the bundle, as the image sets it (Dockerfile). Files go to an S3 server
      // (versitygw), through the AWS SDK from the bundle (docs/adr/0038); the directory store's
      // directory must stay empty.
      filesDir = join(root ?? image, 'files');
      mkdirSync(filesDir);
      s3 = await startS3Server({
        logFile: join(environment().controlPlane.logDir, 'image-bundle-versitygw.log'),
        buckets: [FILES_BUCKET],
      });
      rememberSecret(s3.secretAccessKey);
      proc = start('api', {
        ...apiConfig,
        AIPLANE_API_HOST: '127.0.0.1',
        AIPLANE_API_PORT: '0',
        AIPLANE_EMBEDDING_MODEL_DIR: join(image, BUNDLED_MODEL_DIR),
        AIPLANE_FILES_DIR: filesDir,
        AIPLANE_FILES_STORE: 's3',
        AIPLANE_FILES_S3_BUCKET: FILES_BUCKET,
        AIPLANE_FILES_S3_ENDPOINT: s3.endpoint,
        AIPLANE_FILES_S3_ACCESS_KEY_ID: s3.accessKeyId,
        AIPLANE_FILES_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      });
      url = `http://127.0.0.1:${await portOf(proc, 'api listening')}`;
    });

    after(async function () {
      await s3?.close();
    });

    it('answers /readyz with 200 once the database is migrated and the caches synced', async function () {
      await ready(`${url}/readyz`);
    });

    it('answers an unauthenticated GET /v1/mcp/servers with 401 authentication_required', async function () {
      const r = await call(`${url}/v1/mcp/servers`);
      assert.equal(r.status, 401, r.text);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      const body = r.json() as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'authentication_required');
      assert.equal(typeof body.error.message, 'string');
      assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="aiplane"');
    });

    it('sanitises an uploaded SVG logo (jsdom and DOMPurify from the bundle) and serves it sandboxed', async function () {
      const headers = {
        authorization: `Bearer ${await tokenFor('admin', ORG_SCOPE)}`,
        'x-aiplane-organization': keycloak().organization.id,
      };
      const svg =
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script>' +
        '<style>.a{fill:#2457d6}</style><rect id="keep" class="a" width="4" height="4"/></svg>';
      const up = await fetch(`${url}/v1/branding/logo`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'image/svg+xml' },
        body: svg,
      });
      assert.equal(up.status, 200, await up.text());
      const r = await fetch(`${url}/v1/branding/logo`, { headers });
      const served = await r.text();
      assert.equal(r.status, 200, served);
      assert.match(r.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      assert.match(r.headers.get('content-security-policy') ?? '', /^sandbox;/);
      assert.ok(served.includes('<rect id="keep" class="a"'), served);
      assert.ok(served.includes('.a{fill:#2457d6}'), served);
      assert.ok(!/script|onload/i.test(served), served);
    });

    it('processes an uploaded Markdown file and a PDF with the bundled engines (the local model in its worker, pdfjs) and finds them in the collection', async function () {
      this.timeout(180_000);
      const owner = acting(url, 'member', keycloak().organization.id);
      const uploads: [string, Uint8Array | string, string][] = [
        [
          'lighthouse.md',
          '# The lighthouse\n\nThe old lighthouse on the cape has 143 steps to its lamp room.\n',
          'text/markdown',
        ],
        [
          'orchard.pdf',
          makePdf([['The orchard behind the mill grows twelve kinds of pears.']]),
          'application/pdf',
        ],
      ];
      const files: FileNode[] = [];
      for (const [filename, data, type] of uploads) {
        const r = await owner.upload({ folder_id: 'null', file: { data, filename, type } });
        assert.equal(r.status, 201, r.text);
        files.push(r.json() as FileNode);
      }
      for (const f of files) {
        const done = await fileWithStatus(owner, f.id, 'RAG Available');
        assert.ok((done.chunk_count ?? 0) >= 1, `${f.name}: ${done.chunk_count}`);
      }
      // The bytes are objects of the bucket (versitygw keeps <bucket>/blobs/<uuid> as files).
      assert.equal(readdirSync(join(s3!.root, FILES_BUCKET, 'blobs')).length, files.length);
      assert.deepEqual(readdirSync(filesDir), []);
      for (const [query, file] of [
        ['How many steps does the lighthouse have?', files[0]],
        ['Which fruit grows behind the mill?', files[1]],
      ] as const) {
        const r = await owner.call('POST', '/v1/collections/documents/search', { query });
        assert.equal(r.status, 200, r.text);
        const answer = r.json() as {
          embedding_model: string;
          results: { document_id: string; text: string }[];
        };
        assert.equal(answer.embedding_model, 'all-MiniLM-L6-v2');
        assert.equal(answer.results[0]?.document_id, file?.id, JSON.stringify(answer.results));
      }
    });

    it('serves /openapi.json, /docs and /scalar with their assets from the bundle', async function () {
      for (const path of [
        '/openapi.json',
        '/docs',
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/assets/swagger-ui.css',
        '/scalar',
        '/scalar/assets/standalone.js',
        '/portal/',
        '/portal/admin/tenants',
      ]) {
        const r = await fetch(`${url}${path}`);
        assert.equal(r.status, 200, path);
        assert.ok((await r.arrayBuffer()).byteLength > 100, `${path} is empty`);
      }
    });

    it('stops on SIGTERM with exit code 0', async function () {
      await proc.stop('SIGTERM', 10_000);
      assert.equal(await proc.exited, 0);
    });
  });

  describe('aiplane.mjs gateway', function () {
    let proc: ManagedProcess;
    let url: string;

    before(async function () {
      // After the API's suite: the API has migrated the database they share.
      proc = start('gateway', {
        ...apiConfig,
        AIPLANE_GATEWAY_HOST: '127.0.0.1',
        AIPLANE_GATEWAY_PORT: '0',
        AIPLANE_GATEWAY_METRICS_PORT: '0',
      });
      url = `http://127.0.0.1:${await portOf(proc, 'gateway listening')}`;
    });

    it('answers /readyz with 200', async function () {
      await ready(`${url}/readyz`);
    });

    it('answers an unauthenticated MCP request with 401 and a JSON-RPC error', async function () {
      const r = await call(`${url}/servers/${uniqueName('x')}/mcp`, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      });
      assert.equal(r.status, 401, r.text);
      const body = r.json() as { jsonrpc: string; error: { data?: { code?: string } } };
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.error.data?.code, 'authentication_required');
    });

    it('stops on SIGTERM with exit code 0', async function () {
      await proc.stop('SIGTERM', 10_000);
      assert.equal(await proc.exited, 0);
    });
  });

  describe('aiplane.mjs operator', function () {
    let proc: ManagedProcess;
    let healthUrl: string;

    before(async function () {
      proc = start('operator', {
        ...operatorEnv(environment().info()),
        POD_NAME: identity,
        AIPLANE_OPERATOR_HEALTH_HOST: '127.0.0.1',
        AIPLANE_OPERATOR_HEALTH_PORT: '0',
        AIPLANE_OPERATOR_LEADER_ELECTION: 'true',
        AIPLANE_OPERATOR_LEASE_NAME: leaseName,
        AIPLANE_OPERATOR_LEASE_NAMESPACE: 'default',
        AIPLANE_OPERATOR_SHUTDOWN_GRACE_MS: '5000',
      });
      healthUrl = `http://127.0.0.1:${await portOf(proc, 'operator started')}`;
    });

    it('takes its own Lease', async function () {
      await waitFor(`${identity} to hold ${leaseName}`, async () => {
        if (proc.child.exitCode !== null) throw new StopWaiting(`${proc.name} exited`);
        return (await leaseHolder()) === identity;
      });
    });

    it('answers /readyz on its health port with 200', async function () {
      await ready(`${healthUrl}/readyz`);
    });

    it('releases the Lease and exits 0 on SIGTERM', async function () {
      await proc.stop('SIGTERM', 10_000);
      assert.equal(await proc.exited, 0);
      assert.equal(await leaseHolder(), '');
    });
  });
});
