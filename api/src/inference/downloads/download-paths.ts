import { createHash } from 'node:crypto';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';

/**
 * One segment of a file's path in a model: a name that does not start with a dot (so never `.`,
 * `..` or a hidden file, and never one of our `.…partial` files), without `/`, `\`, NUL or
 * control characters. The whole path is up to 8 such segments joined by `/`.
 */
export const PATH_SEGMENT = '[A-Za-z0-9_][A-Za-z0-9._+=@-]{0,199}';
export const FILE_PATH_PATTERN = `^${PATH_SEGMENT}(/${PATH_SEGMENT}){0,7}$`;
/** A model's name: its directory in the organization's part of the store. */
export const MODEL_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';

const FILE_PATH = new RegExp(FILE_PATH_PATTERN);
const MODEL_NAME = new RegExp(MODEL_NAME_PATTERN);
const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/;

/** Why a path was refused; undefined when it stays inside the model's directory. */
export function pathProblem(path: string): string | undefined {
  if (path.startsWith('/')) return 'must be relative to the model’s directory';
  if (path.split('/').some((s) => s === '..' || s === '.')) return 'must not contain . or ..';
  if (!FILE_PATH.test(path)) {
    return 'must be up to 8 segments joined by /, each a name not starting with a dot (letters, digits, . _ + = @ -)';
  }
  return undefined;
}

export function isModelName(name: string): boolean {
  return MODEL_NAME.test(name);
}

/**
 * The organization's directory name in the store: its id when that is a plain name (Keycloak's
 * ids are UUIDs), else a digest of it, so no organization id can name a path outside.
 */
export function organizationDirectory(organizationId: string): string {
  return SAFE_SEGMENT.test(organizationId)
    ? organizationId
    : `org-${createHash('sha256').update(organizationId).digest('hex').slice(0, 32)}`;
}

/** Where a file lands, and the partial file it is written to until it is complete. */
export interface FileTarget {
  final: string;
  partial: string;
}

/** The target of `path` under `modelDir` (the path must have passed {@link pathProblem}). */
export function fileTarget(modelDir: string, path: string): FileTarget {
  const final = join(modelDir, ...path.split('/'));
  return { final, partial: join(dirname(final), `.${basename(final)}.partial`) };
}

/** A path that leaves the model's directory through a symbolic link. */
export class PathEscapeError extends Error {
  override readonly name = 'PathEscapeError';
}

/**
 * Creates the directories of `target` under `root` and checks that none of them is (or
 * passes through) a symbolic link leaving `root`, and that neither the final nor the partial
 * file is a symbolic link: what is written stays in the store whatever was placed in it.
 */
export async function prepareTarget(root: string, target: FileTarget): Promise<void> {
  await mkdir(dirname(target.final), { recursive: true });
  if ((await realInside(root, dirname(target.final))) === undefined) {
    throw new PathEscapeError(`the directory of ${basename(target.final)} leaves the model store`);
  }
  for (const file of [target.final, target.partial]) {
    const info = await lstat(file).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      throw new PathEscapeError(
        `${basename(file)} is a symbolic link; refusing to write through it`,
      );
    }
  }
}

/** `path` with its symbolic links followed when that is `root` or inside it (both must exist). */
async function realInside(root: string, path: string): Promise<string | undefined> {
  const realRoot = await realpath(root);
  const real = await realpath(path);
  return real === realRoot || real.startsWith(realRoot + sep) ? real : undefined;
}

/**
 * The file a store-relative `path` names, for reading: refused (PathEscapeError) when the path
 * breaks the rules of {@link pathProblem} or leaves `root` through a symbolic link; a missing
 * file rejects with the file system's error (ENOENT).
 */
export async function storeFile(root: string, path: string): Promise<string> {
  const problem = pathProblem(path);
  if (problem !== undefined) throw new PathEscapeError(`the path ${problem}`);
  const file = join(root, ...path.split('/'));
  const real = await realInside(root, file);
  if (real === undefined) throw new PathEscapeError(`${basename(file)} leaves the model store`);
  return real;
}
