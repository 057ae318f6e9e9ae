// `make image-bundle`: bundles the api, the gateway and the operator into dist/image, the only
// thing the container image carries (docs/adr/0013-container-image.md).
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { repoRoot } from '../paths.js';
import { bundledAssetPath, DOCS_ASSETS, packageDir } from '@aiplane/api';
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
] as const;

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
  outExtension: { '.js': '.mjs' },
  banner: { js: CJS_SHIM },
  external: [...NOT_BUNDLED],
  plugins: [runTimeFiles],
  logLevel: 'error',
} as const satisfies BuildOptions;

export interface BundleResult {
  /** The image's files (relative to outDir) and their sizes in bytes. */
  files: { path: string; bytes: number }[];
  totalBytes: number;
  /** Where the source maps and the metafile went (`<outDir>-debug`, not part of the image). */
  debugDir: string;
  metafile: Metafile;
}

/**
 * Bundles `aiplane.mjs` (the entry point) and one file per component into `outDir` (emptied
 * first), shared code in `chunks/`. Source maps and esbuild's metafile go to the sibling
 * `<outDir>-debug`, so the map's relative source paths still resolve from there.
 */
export async function bundleImage(outDir: string): Promise<BundleResult> {
  const out = resolve(outDir);
  const debugDir = `${out}-debug`;
  const result = await build({
    ...COMMON,
    entryPoints: [
      { in: join(repoRoot, 'hack/src/image/entry.ts'), out: 'aiplane' },
      ...Object.entries(COMPONENTS).map(([name, { main }]) => ({
        in: join(repoRoot, main),
        out: name,
      })),
    ],
    outdir: out,
    splitting: true,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'external',
    metafile: true,
    write: false,
  });
  await rm(out, { recursive: true, force: true });
  await rm(debugDir, { recursive: true, force: true });
  const files: BundleResult['files'] = [];
  for (const file of result.outputFiles) {
    const isMap = file.path.endsWith('.map');
    const target = isMap ? join(debugDir, relative(out, file.path)) : file.path;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.contents);
    if (!isMap) files.push({ path: relative(out, file.path), bytes: file.contents.byteLength });
  }
  // The documentation pages' browser files are read at run time (api/src/docs/assets.ts).
  for (const [page, spec] of Object.entries(DOCS_ASSETS) as [
    keyof typeof DOCS_ASSETS,
    (typeof DOCS_ASSETS)[keyof typeof DOCS_ASSETS],
  ][]) {
    const pkg = packageDir(spec.package, repoRoot);
    if (pkg === undefined) throw new Error(`${spec.package} is not installed`);
    for (const file of spec.files) {
      const path = bundledAssetPath(page, file);
      await mkdir(dirname(join(out, path)), { recursive: true });
      await copyFile(join(pkg, file), join(out, path));
      files.push({ path, bytes: (await stat(join(out, path))).size });
    }
  }
  await writeFile(join(debugDir, 'meta.json'), JSON.stringify(result.metafile));
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const totalBytes = files.reduce((sum, f) => sum + f.bytes, 0);
  return { files, totalBytes, debugDir, metafile: result.metafile };
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
  const result = await bundleImage(outDir);
  for (const f of result.files.filter((f) => !f.path.startsWith('chunks/'))) {
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
