// `make image-bundle`: bundles the api, the gateway and the operator into dist/image, the only
// thing the container image carries (docs/adr/0013-container-image.md).
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { miniLmDir, repoRoot } from '../paths.js';
import {
  BUNDLED_PORTAL_DIR,
  bundledAssetPath,
  DOCS_ASSETS,
  packageDir,
  PORTAL_BUILD_DIR,
} from '@aiplane/api';
import { COMPONENTS } from './components.js';

/**
 * Modules dependencies `require` lazily (inside a function or a try block) that the image
 * does without, left as plain `require` calls: knex's other dialects' drivers (a dialect
 * requires its driver only when chosen; only `pg`, pure JS, is used), and optional native
 * add-ons that their users try and fall back from. Listing the try-block ones too keeps the
 * bundle from depending on what happens to be installed where it is built.
 */
export const NOT_BUNDLED = [
  // knex dialects other than PostgreSQL
  'better-sqlite3',
  'sqlite3',
  'mysql',
  'mysql2',
  'mariadb',
  'oracledb',
  'tedious',
  // knex's PostgreSQL streaming (only with `.stream()`) and pg's native binding (`pg.native`)
  'pg-query-stream',
  'pg-native',
  // ws's optional native speed-ups (it falls back to JavaScript)
  'bufferutil',
  'utf-8-validate',
  // the local embedding model's ONNX Runtime binding: a native add-on, copied (NATIVE_PACKAGE)
  'onnxruntime-node',
] as const;

/**
 * Modules that a bundled module loads by a path it computes at run time, relative to its own
 * file: each is bundled as an entry of its own and written beside the output file that holds
 * the module loading it (found in the metafile). The local embedder starts its worker thread
 * from `new URL('./local-embedder-worker.js', import.meta.url)` (an ES module with a `.js`
 * name: the image's package.json says `"type": "module"`); pdfjs-dist's legacy build, in
 * Node.js, runs its parser in a "fake worker" on the same thread, imported from
 * `./pdf.worker.mjs`.
 */
export const RUN_TIME_ENTRIES: readonly { loadedBy: string; entry: string; file: string }[] = [
  {
    loadedBy: 'api/src/knowledge/local-embedder.ts',
    entry: 'api/src/knowledge/local-embedder-worker.ts',
    file: 'local-embedder-worker.js',
  },
  {
    loadedBy: 'pdfjs-dist/legacy/build/pdf.mjs',
    entry: 'pdfjs-dist/legacy/build/pdf.worker.mjs',
    file: 'pdf.worker.mjs',
  },
];

/**
 * The native add-on the image carries as a package of its own in `node_modules/` (external to
 * the bundle): its JavaScript files that run (those its main module reaches, found by bundling
 * it once for the metafile, onnxruntime-common included), the package.json files that decide
 * how they load, and the native binaries for one platform (`bin/napi-v*\/linux/<arch>/`: the
 * binding and libonnxruntime.so.1, which the binding finds beside itself).
 */
export const NATIVE_PACKAGE = 'onnxruntime-node';

/** The local embedding model's files, copied to `models/all-minilm-l6-v2/` (docs/adr/0013). */
export const MODEL_FILES = ['model.onnx', 'tokenizer.json'] as const;
export const BUNDLED_MODEL_DIR = 'models/all-minilm-l6-v2';

/**
 * Files of dependencies that find files of their own package at run time, where the image has
 * no package: each such expression is replaced at build time (the build fails when one is not
 * found, so an upgrade that moves it cannot slip through). jsdom (the API's SVG sanitiser):
 * its default style sheet, read with `fs.readFileSync(__dirname…)`, is inlined; its
 * synchronous XMLHttpRequest worker, located with `require.resolve` when the module loads, is
 * not in the image (the sanitiser makes no requests). css-tree (under jsdom) loads its JSON
 * data with `createRequire(import.meta.url)`: made a plain `require` that esbuild bundles.
 */
export const RUN_TIME_FILES: readonly {
  file: RegExp;
  replace: (source: string, path: string) => Promise<string>;
}[] = [
  {
    file: /[\\/]jsdom[\\/]lib[\\/]jsdom[\\/]living[\\/]css[\\/]helpers[\\/]computed-style\.js$/,
    replace: async (source, path) => {
      const read =
        /fs\.readFileSync\(\s*path\.resolve\(__dirname, "([^"]+\.css)"\),\s*\{ encoding: "utf-8" \}\s*\)/;
      const css = read.exec(source)?.[1];
      if (css === undefined) throw new Error(`${path}: the style sheet read was not found`);
      return source.replace(read, JSON.stringify(await readFile(join(dirname(path), css), 'utf8')));
    },
  },
  {
    file: /[\\/]jsdom[\\/]lib[\\/]jsdom[\\/]living[\\/]xhr[\\/]XMLHttpRequest-impl\.js$/,
    replace: (source, path) =>
      Promise.resolve(
        replaceOnce(
          source,
          'require.resolve("./xhr-sync-worker.js")',
          '"jsdom xhr-sync-worker.js is not in the image"',
          path,
        ),
      ),
  },
  {
    file: /[\\/]css-tree[\\/]lib[\\/](?:data|data-patch|version)\.js$/,
    replace: (source, path) =>
      Promise.resolve(
        replaceOnce(source, 'const require = createRequire(import.meta.url);', '', path),
      ),
  },
];

function replaceOnce(source: string, find: string, by: string, path: string): string {
  if (!source.includes(find)) throw new Error(`${path}: "${find}" was not found`);
  return source.replace(find, by);
}

const runTimeFiles: Plugin = {
  name: 'aiplane-run-time-files',
  setup(b) {
    for (const { file, replace } of RUN_TIME_FILES) {
      b.onLoad({ filter: file }, async ({ path }) => ({
        contents: await replace(await readFile(path, 'utf8'), path),
        loader: 'js',
      }));
    }
  },
};

/**
 * CommonJS dependencies (express, pg, knex, pino, …) use `require`, `__filename` and
 * `__dirname`, which an ES module does not have; every output file defines them first.
 */
const CJS_SHIM = [
  "import { createRequire as __aiplaneCreateRequire } from 'node:module';",
  "import { dirname as __aiplaneDirname } from 'node:path';",
  "import { fileURLToPath as __aiplaneFileURLToPath } from 'node:url';",
  'const require = __aiplaneCreateRequire(import.meta.url);',
  'const __filename = __aiplaneFileURLToPath(import.meta.url);',
  'const __dirname = __aiplaneDirname(__filename);',
].join('\n');

/** What every bundle of ours is built with: ESM for Node, the CommonJS shim, what stays out. */
const COMMON = {
  absWorkingDir: repoRoot,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  banner: { js: CJS_SHIM },
  external: [...NOT_BUNDLED],
  plugins: [runTimeFiles],
  logLevel: 'error',
} as const satisfies BuildOptions;

/** The image's builds: maps and the metafile kept in memory, written by bundleImage. */
const IMAGE = {
  ...COMMON,
  sourcemap: 'external',
  metafile: true,
  write: false,
} as const satisfies BuildOptions;

export interface BundleResult {
  /** The image's files (relative to outDir) and their sizes in bytes. */
  files: { path: string; bytes: number }[];
  totalBytes: number;
  /** Where the source maps and the metafile went (`<outDir>-debug`, not part of the image). */
  debugDir: string;
  metafile: Metafile;
}

export interface BundleOptions {
  /** The CPU architecture whose native binaries the image carries (Node.js's name, or Docker's `amd64`); default this machine's. */
  arch?: string;
  /** Where model.onnx and tokenizer.json are copied from (default the cache install-models.sh fills). */
  modelDir?: string;
}

/** The options every esbuild run shares. */

/** Resolves a module as the api workspace would (a repository path is taken as is). */
function sourceOf(spec: string): string {
  if (spec.startsWith('api/')) return join(repoRoot, spec);
  return createRequire(join(repoRoot, 'api', 'package.json')).resolve(spec);
}

/**
 * Bundles `aiplane.mjs` (the entry point) and one file per component into `outDir` (emptied
 * first), shared code in `chunks/`, the run-time entries beside the modules that load them,
 * the native add-on in `node_modules/`, the documentation pages' assets and the local
 * embedding model. Source maps and esbuild's metafile go to the sibling `<outDir>-debug`, so
 * the map's relative source paths still resolve from there.
 */
export async function bundleImage(outDir: string, opts: BundleOptions = {}): Promise<BundleResult> {
  const out = resolve(outDir);
  const debugDir = `${out}-debug`;
  const result = await build({
    ...IMAGE,
    entryPoints: [
      { in: join(repoRoot, 'hack/src/image/entry.ts'), out: 'aiplane' },
      ...Object.entries(COMPONENTS).map(([name, { main }]) => ({
        in: join(repoRoot, main),
        out: name,
      })),
    ],
    outdir: out,
    splitting: true,
    outExtension: { '.js': '.mjs' },
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
  });
  await rm(out, { recursive: true, force: true });
  await rm(debugDir, { recursive: true, force: true });
  const files: BundleResult['files'] = [];
  const write = async (path: string, contents: Uint8Array | string): Promise<void> => {
    const isMap = path.endsWith('.map');
    const target = isMap ? join(debugDir, relative(out, path)) : path;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, contents);
    if (!isMap) files.push({ path: relative(out, path), bytes: Buffer.byteLength(contents) });
  };
  const copy = async (from: string, to: string): Promise<void> => {
    await mkdir(dirname(join(out, to)), { recursive: true });
    await copyFile(from, join(out, to));
    files.push({ path: to, bytes: (await stat(join(out, to))).size });
  };
  for (const file of result.outputFiles) await write(file.path, file.contents);
  // The `.js` run-time entry is an ES module (it awaits at top level).
  await write(join(out, 'package.json'), '{ "type": "module" }\n');
  for (const { loadedBy, entry, file } of RUN_TIME_ENTRIES) {
    const loader = relative(repoRoot, sourceOf(loadedBy));
    const holder = Object.entries(result.metafile.outputs).find(([, o]) => loader in o.inputs);
    if (holder === undefined) throw new Error(`${loader} is not in the bundle`);
    const ext = extname(file);
    const built = await build({
      ...IMAGE,
      entryPoints: [{ in: sourceOf(entry), out: basename(file, ext) }],
      outdir: dirname(resolve(repoRoot, holder[0])),
      outExtension: { '.js': ext },
      entryNames: '[name]',
    });
    for (const f of built.outputFiles) await write(f.path, f.contents);
  }
  await copyNativePackage(opts.arch ?? process.arch, copy);
  // The documentation pages' browser files are read at run time (api/src/docs/assets.ts).
  for (const [page, spec] of Object.entries(DOCS_ASSETS) as [
    keyof typeof DOCS_ASSETS,
    (typeof DOCS_ASSETS)[keyof typeof DOCS_ASSETS],
  ][]) {
    const pkg = packageDir(spec.package, repoRoot);
    if (pkg === undefined) throw new Error(`${spec.package} is not installed`);
    for (const file of spec.files) await copy(join(pkg, file), bundledAssetPath(page, file));
  }
  // The built portal (hack/lib/build-portal.sh), served under /portal/ (api/src/portal).
  const portal = join(repoRoot, PORTAL_BUILD_DIR);
  if (!(await stat(join(portal, 'index.html')).catch(() => undefined))) {
    throw new Error(`${portal} is missing: run hack/lib/build-portal.sh (make setup)`);
  }
  for (const file of await readdir(portal, { recursive: true, withFileTypes: true })) {
    if (!file.isFile() || file.name.startsWith('.')) continue;
    const from = join(file.parentPath, file.name);
    await copy(from, join(BUNDLED_PORTAL_DIR, relative(portal, from)));
  }
  const modelDir = opts.modelDir ?? miniLmDir();
  for (const file of MODEL_FILES) {
    const from = join(modelDir, file);
    if (!(await stat(from).catch(() => undefined))) {
      throw new Error(`${from} is missing: run hack/lib/install-models.sh (make setup)`);
    }
    await copy(from, `${BUNDLED_MODEL_DIR}/${file}`);
  }
  await writeFile(join(debugDir, 'meta.json'), JSON.stringify(result.metafile));
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const totalBytes = files.reduce((sum, f) => sum + f.bytes, 0);
  return { files, totalBytes, debugDir, metafile: result.metafile };
}

/** Docker's architecture names to Node.js's. */
const ARCH: Record<string, string> = { amd64: 'x64', x64: 'x64', arm64: 'arm64' };

/** Copies {@link NATIVE_PACKAGE}'s run-time files for linux-`arch` into `node_modules/`. */
async function copyNativePackage(
  arch: string,
  copy: (from: string, to: string) => Promise<void>,
): Promise<void> {
  const nodeArch = ARCH[arch];
  if (nodeArch === undefined) throw new Error(`no native binaries for the architecture ${arch}`);
  const main = sourceOf(NATIVE_PACKAGE);
  const reached = await build({
    absWorkingDir: repoRoot,
    entryPoints: [main],
    bundle: true,
    platform: 'node',
    loader: { '.node': 'empty' },
    metafile: true,
    write: false,
    logLevel: 'error',
  });
  const wanted = new Set<string>();
  for (const input of Object.keys(reached.metafile.inputs)) {
    if (input.endsWith('.node')) continue;
    const path = resolve(repoRoot, input);
    wanted.add(path);
    // The package.json files between the module and its package's root decide how it loads.
    const root = packageRootOf(path);
    for (let dir = dirname(path); dir.length >= root.length; dir = dirname(dir)) {
      if (await stat(join(dir, 'package.json')).catch(() => undefined)) {
        wanted.add(join(dir, 'package.json'));
      }
    }
  }
  const pkg = packageRootOf(main);
  const napi = (await readdir(join(pkg, 'bin'))).filter((d) => d.startsWith('napi-v'));
  if (napi.length !== 1) {
    throw new Error(`${pkg}/bin: expected one napi-v* directory, found ${napi.join(', ')}`);
  }
  const native = join(pkg, 'bin', napi[0] as string, 'linux', nodeArch);
  for (const file of await readdir(native)) wanted.add(join(native, file));
  for (const path of [...wanted].sort()) {
    await copy(path, path.slice(path.lastIndexOf('node_modules/')));
  }
}

/** `…/node_modules/<name>` (or `…/node_modules/@scope/name`) of a file inside a package. */
function packageRootOf(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) throw new Error(`${path} is not in node_modules`);
  const start = at + 'node_modules/'.length;
  const parts = path.slice(start).split('/');
  const name = parts[0]?.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return path.slice(0, start) + (name ?? '');
}

/**
 * Entry points bundled each alone (`name` → a path relative to the repository), as
 * `<outDir>/<name>.mjs` with its source map beside it (stack traces name the TypeScript sources
 * under `--enable-source-maps`): for a caller that starts them as processes many times, such as
 * the integration tests' operator. Node loads the one file in well under a second, where tsx
 * took 5–8 s to load the same sources on the loaded 2-core machine (@kubernetes/client-node
 * alone is about a thousand modules). Answers each name's file.
 */
export async function bundleEntries(
  entries: Record<string, string>,
  outDir: string,
): Promise<Record<string, string>> {
  const out = resolve(outDir);
  await build({
    ...COMMON,
    entryPoints: Object.entries(entries).map(([name, entry]) => ({
      in: join(repoRoot, entry),
      out: name,
    })),
    outdir: out,
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
  });
  return Object.fromEntries(Object.keys(entries).map((name) => [name, join(out, `${name}.mjs`)]));
}

/** The biggest inputs of the bundle (by bytes in the output), for the summary. */
function biggestPackages(metafile: Metafile, count: number): [string, number][] {
  const byPackage = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const key = m?.[1] ?? input.split('/')[0] ?? input;
      byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
    }
  }
  return [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, count);
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;

/** `make image-bundle`: bundles into dist/image and prints what it wrote. */
async function main(): Promise<void> {
  const outDir = join(repoRoot, 'dist', 'image');
  // --arch=<amd64|arm64|x64|…>: the Dockerfile passes the target platform's.
  const arch = process.argv.find((a) => a.startsWith('--arch='))?.slice('--arch='.length);
  const result = await bundleImage(outDir, arch ? { arch } : {});
  for (const f of result.files.filter((f) => !/^(chunks|node_modules|assets)\//.test(f.path))) {
    console.log(`  ${f.path.padEnd(16)} ${kib(f.bytes)}`);
  }
  const chunks = result.files.filter((f) => f.path.startsWith('chunks/'));
  const chunkBytes = chunks.reduce((sum, f) => sum + f.bytes, 0);
  console.log(`  chunks/ (${chunks.length} files) ${kib(chunkBytes)}`);
  console.log(
    `${relative(repoRoot, outDir)}: ${kib(result.totalBytes)} in ${result.files.length} files`,
  );
  console.log(
    `largest inputs: ${biggestPackages(result.metafile, 8)
      .map(([name, bytes]) => `${name} ${kib(bytes)}`)
      .join(', ')}`,
  );
  console.log(`source maps and metafile: ${relative(repoRoot, result.debugDir)}`);
}

// No top-level await: tests import this module, and mocha loads test files with require().
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
