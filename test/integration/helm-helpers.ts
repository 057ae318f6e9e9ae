import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { binaryPaths, repoRoot } from '@aiplane/hack';
import { environment } from './harness.js';
import { kubeEnv, kubectl } from './kube-helpers.js';

const run = promisify(execFile);

export const CHART = join(repoRoot, 'charts', 'aiplane');
export const FULL_VALUES = join(CHART, 'ci', 'full-values.yaml');
/** The file store in an S3-compatible bucket (docs/adr/0038). */
export const S3_VALUES = join(CHART, 'ci', 's3-values.yaml');

/** helm (built from the Go module proxy) against the local control plane, state under the run dir. */
export async function helm(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const dir = environment().dir;
  return run(binaryPaths().helm, args, {
    env: {
      ...kubeEnv(),
      HELM_CACHE_HOME: join(dir, 'helm-cache'),
      HELM_CONFIG_HOME: join(dir, 'helm-config'),
      HELM_DATA_HOME: join(dir, 'helm-data'),
    },
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** The stderr of a command that must fail. */
export async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
  assert.fail('the command succeeded');
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** The objects of a multi-document YAML stream (empty documents left out). */
export function manifests(yaml: string): Manifest[] {
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as Manifest | null)
    .filter((o): o is Manifest => !!o?.kind);
}

/**
 * The Secrets a release reads (the chart's defaults), with values that pass each component's
 * configuration checks. Nothing here is a real credential; pods do not run in this cluster.
 */
export async function createReleaseSecrets(namespace: string): Promise<void> {
  const secrets: Record<string, Record<string, string>> = {
    'aiplane-database': { url: 'postgres://aiplane:unused@postgres:5432/aiplane' },
    'aiplane-credential-keys': { keys: `k1:${Buffer.alloc(32, 7).toString('base64')}` },
    'aiplane-identity-provider': {
      'api-client-secret': 'unused',
      'operator-client-secret': 'unused',
    },
  };
  for (const [name, data] of Object.entries(secrets)) {
    const args = [
      '-n',
      namespace,
      'create',
      'secret',
      'generic',
      name,
      '--dry-run=client',
      '-o',
      'yaml',
    ];
    for (const [k, v] of Object.entries(data)) args.push(`--from-literal=${k}=${v}`);
    await kubectl(['apply', '--server-side', '-f', '-'], await kubectl(args));
  }
}
