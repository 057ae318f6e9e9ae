import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where everything runs: one namespace holds PostgreSQL, Keycloak and the release. */
export const NAMESPACE = 'aiplane-system';
export const RELEASE = 'aiplane';
/** The kind cluster e2e/run-kind.sh creates; its kubeconfig context is `kind-<name>`. */
export const CLUSTER = 'aiplane-e2e';
export const KIND_CONTEXT = `kind-${CLUSTER}`;

/** The platform image (`docker build -t ghcr.io/aiplane/aiplane:e2e .`). */
export const PLATFORM_IMAGE = { repository: 'ghcr.io/aiplane/aiplane', tag: 'e2e' } as const;
/** The managed MCP server's image (e2e/mcp-server), loaded into kind, never pulled. */
export const MCP_IMAGE = 'registry.e2e.local/aiplane/e2e-mcp:1';
export const MCP_PORT = 8000;
export const MCP_PATH = '/mcp';

/** Service names and ports the suite forwards to (the chart's `<release>-api` and `-gateway`). */
export const SERVICES = {
  keycloak: { name: 'keycloak', port: 8080 },
  postgres: { name: 'postgres', port: 5432 },
  api: { name: `${RELEASE}-api`, port: 8080 },
  gateway: { name: `${RELEASE}-gateway`, port: 8090 },
} as const;

export interface E2eConfig {
  /** The kind cluster's kubeconfig (run-kind.sh writes it with `kind get kubeconfig`). */
  kubeconfig: string;
  kubectl: string;
  helm: string;
  /** Diagnostics are written here (and printed) when the suite fails. */
  artifactsDir: string;
}

export class E2eConfigError extends Error {}

/**
 * The suite's configuration, from the environment (run-kind.sh sets it): `KUBECONFIG`
 * (required: the suite never falls back to a default cluster), `KUBECTL` and `HELM` (default
 * the binaries `make setup` builds), `E2E_ARTIFACTS_DIR`.
 */
export function loadE2eConfig(
  env: NodeJS.ProcessEnv,
  defaults: { binaries: () => { kubectl: string; helm: string }; now?: () => Date },
): E2eConfig {
  const kubeconfig = env.KUBECONFIG ?? '';
  if (kubeconfig === '') {
    throw new E2eConfigError(
      'KUBECONFIG is not set: run the suite through e2e/run-kind.sh (make e2e-kind), which points it at the kind cluster',
    );
  }
  if (kubeconfig.includes(':')) {
    throw new E2eConfigError('KUBECONFIG must name one file (the kind cluster), not a list');
  }
  const needBinaries = !env.KUBECTL || !env.HELM;
  const binaries = needBinaries ? defaults.binaries() : undefined;
  const stamp = (defaults.now?.() ?? new Date()).toISOString().replace(/[:.]/g, '-');
  return Object.freeze({
    kubeconfig,
    kubectl: env.KUBECTL || (binaries?.kubectl ?? ''),
    helm: env.HELM || (binaries?.helm ?? ''),
    artifactsDir: env.E2E_ARTIFACTS_DIR || join(tmpdir(), `aiplane-e2e-${stamp}`),
  });
}

/**
 * Refuses any cluster but the e2e kind cluster, so a stray KUBECONFIG never gets namespaces
 * created and a release installed (E2E_ALLOW_ANY_CONTEXT=1 lifts it, for a cluster made
 * by hand under another name).
 */
export function checkContext(context: string, env: NodeJS.ProcessEnv): void {
  if (context === KIND_CONTEXT || env.E2E_ALLOW_ANY_CONTEXT === '1') return;
  throw new E2eConfigError(
    `the kubeconfig's current context is "${context}", not "${KIND_CONTEXT}": refusing to install into it (set E2E_ALLOW_ANY_CONTEXT=1 to allow)`,
  );
}
