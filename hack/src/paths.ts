import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is hack/src/paths.ts). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const hackDir = join(repoRoot, 'hack');

/** Pinned versions, read from the one shell file that also drives the build scripts. */
export function versions(): Record<string, string> {
  const text = readFileSync(join(hackDir, 'lib', 'versions.sh'), 'utf8');
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^([A-Z_]+)=([^\s$"]+)$/gm)) out[m[1] as string] = m[2] as string;
  return out;
}

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'aiplane');
}

/**
 * all-MiniLM-L6-v2 as hack/lib/install-models.sh extracts it: `tokenizer.json` (BERT WordPiece)
 * and `model.onnx`.
 */
export function miniLmDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'models', 'all-minilm-l6-v2');
}

/**
 * The local speech engine's helper as hack/lib/build-speech-helper.sh compiles it: its cache
 * directory is keyed by the hash of its C source (docs/adr/0036).
 */
export function speechHelperPath(env: NodeJS.ProcessEnv = process.env): string {
  const source = readFileSync(
    join(repoRoot, 'api', 'src', 'speech', 'native', 'pocketsphinx-stream.c'),
  );
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 12);
  return join(cacheDir(env), 'bin', `stt-pocketsphinx-${hash}`, 'aiplane-stt-pocketsphinx');
}

// Same key as hack/lib/build-binaries.sh: version plus a hash of the module files.
function modHash(tool: string): string {
  const dir = join(hackDir, 'tools', tool);
  const h = createHash('sha256');
  h.update(readFileSync(join(dir, 'go.mod')));
  h.update(readFileSync(join(dir, 'go.sum')));
  return h.digest('hex').slice(0, 12);
}

export interface BinaryPaths {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubectl: string;
  helm: string;
  /** The S3 server of the S3 blob store's tests (hack/lib/build-versitygw.sh). */
  versitygw: string;
}

export function binaryPaths(): BinaryPaths {
  const v = versions();
  const kube = join(cacheDir(), 'bin', `kube-${v.KUBE_VERSION}-${modHash('kube')}`);
  const etcd = join(cacheDir(), 'bin', `etcd-${v.ETCD_VERSION}-${modHash('etcd')}`);
  const helm = join(cacheDir(), 'bin', `helm-${v.HELM_VERSION}-${modHash('helm')}`);
  const s3 = join(cacheDir(), 'bin', `versitygw-${v.VERSITYGW_VERSION}-${modHash('versitygw')}`);
  return {
    etcd: join(etcd, 'etcd'),
    kubeApiserver: join(kube, 'kube-apiserver'),
    kubeControllerManager: join(kube, 'kube-controller-manager'),
    kubectl: join(kube, 'kubectl'),
    helm: join(helm, 'helm'),
    versitygw: join(s3, 'versitygw'),
  };
}
