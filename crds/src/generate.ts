/**
 * Writes the CRD YAML derived from the schemas in this package:
 *   npx tsx crds/src/generate.ts          write crds/generated/* and the chart's crd-*.yaml
 *   npx tsx crds/src/generate.ts --check  write nothing; exit 1 when a committed file differs
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './render.js';
import { staleFiles } from './stale-files.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--check')) {
    const stale = await staleFiles(REPO_ROOT, generatedFiles());
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
