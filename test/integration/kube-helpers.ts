import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  ApiException,
  KubernetesObjectApi,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { isNotFound, kubeRequest } from '@aiplane/lib';
import { binaryPaths, waitFor } from '@aiplane/hack';
import { environment, kubeConfig } from './harness.js';

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

/**
 * Deletes the object at `path` with the kube API (as kubectl would) and waits until a GET of it
 * answers 404; `what` names the object in the wait's message.
 */
export async function kubeDeleteAndWait(
  path: string,
  what: string,
  opts: { timeoutMs?: number } = {},
): Promise<void> {
  await kubeRequest(kubeConfig(), { method: 'DELETE', path });
  await waitFor(
    `${what} to be gone`,
    async () => {
      try {
        await kubeRequest(kubeConfig(), { method: 'GET', path });
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    },
    opts,
  );
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
