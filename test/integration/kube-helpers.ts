import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  ApiException,
  KubernetesObjectApi,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { binaryPaths } from '@aiplane/hack';
import { environment } from './harness.js';

const run = promisify(execFile);

/** The environment of a command run against the local control plane (its KUBECONFIG). */
export const kubeEnv = () => ({ ...process.env, KUBECONFIG: environment().info().kubeconfig });

/** kubectl against the local control plane; `input` goes to its stdin. */
export async function kubectl(args: string[], input?: string): Promise<string> {
  const child = run(binaryPaths().kubectl, args, { env: kubeEnv(), maxBuffer: 16 * 1024 * 1024 });
  child.child.stdin?.end(input ?? '');
  return (await child).stdout;
}

/** Status code and message of a refused apiserver call (client-node v2 ApiException). */
export async function refusal(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiException) {
      const body: unknown = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
      const message = (body as { message?: string } | undefined)?.message ?? String(err.body);
      return { code: err.code, message };
    }
    throw err;
  }
  throw new Error('the apiserver accepted what it should have refused');
}

export function objectApi(kc: KubeConfig): KubernetesObjectApi {
  return KubernetesObjectApi.makeApiClient(kc);
}

let counter = 0;
/** A unique lowercase name for a test object. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid % 10000}-${counter}-${Math.random().toString(36).slice(2, 6)}`;
}

export type Obj = KubernetesObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};
