/**
 * Writes the CRD YAML derived from the schemas in this package:
 *   npx tsx crds/src/generate.ts          write crds/generated/* and the chart's crd-*.yaml
 *   npx tsx crds/src/generate.ts --check  write nothing; exit 1 when a committed file differs
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles, type GeneratedFile } from './render.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Where `actual` first departs from `expected`, for a one-line hint. */
export function firstDifference(expected: string, actual: string | null): string {
  if (actual === null) return 'missing';
  const want = expected.split('\n');
  const have = actual.split('\n');
  for (let i = 0; i < Math.max(want.length, have.length); i++) {
    if (want[i] !== have[i]) {
      return `line ${i + 1}: expected ${JSON.stringify(want[i] ?? '<end of file>')}, found ${JSON.stringify(have[i] ?? '<end of file>')}`;
    }
  }
  return 'identical';
}

/** The generated files whose committed copy differs from what the schemas produce now. */
export async function staleFiles(
  root = REPO_ROOT,
  files: GeneratedFile[] = generatedFiles(),
): Promise<{ path: string; hint: string }[]> {
  const stale: { path: string; hint: string }[] = [];
  for (const file of files) {
    const actual = await readOrNull(join(root, file.path));
    if (actual !== file.content)
      stale.push({ path: file.path, hint: firstDifference(file.content, actual) });
  }
  return stale;
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--check')) {
    const stale = await staleFiles();
    for (const { path, hint } of stale) console.error(`${path} is out of date (${hint})`);
    if (stale.length > 0) {
      console.error('run `npm run crds:generate` and commit the result');
      return 1;
    }
    console.log('generated CRDs are up to date');
    return 0;
  }
  for (const file of generatedFiles()) {
    const target = join(REPO_ROOT, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content);
    console.log(`wrote ${file.path}`);
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
