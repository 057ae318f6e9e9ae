import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GeneratedFile } from './render.js';

/** A committed file that differs from what its generator produces now. */
export interface StaleFile {
  path: string;
  /** Where it first differs, for a one-line hint (`missing` when there is no such file). */
  hint: string;
}

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

/**
 * The generated files whose committed copy under `root` differs from `files`, byte for byte:
 * the drift check of every generator (`make crds-check`).
 */
export async function staleFiles(
  root: string,
  files: readonly GeneratedFile[],
): Promise<StaleFile[]> {
  const stale: StaleFile[] = [];
  for (const file of files) {
    const actual = await readOrNull(join(root, file.path));
    if (actual !== file.content)
      stale.push({ path: file.path, hint: firstDifference(file.content, actual) });
  }
  return stale;
}
