/** What the e2e release sets on top of the chart's defaults (charts/aiplane/values.yaml). */
export interface HelmInstallOptions {
  release: string;
  chart: string;
  namespace: string;
  image: { repository: string; tag: string };
  /** `gateway.publicUrl`: where the suite reaches the gateway (its port-forward). */
  gatewayPublicUrl: string;
  /** `tenantDatabase.existingSecret` (the chart's default is none). */
  tenantDatabaseSecret: string;
  /** helm's `--timeout` for `--wait`, e.g. `10m`. */
  timeout: string;
}

/** One `--set-string` value: helm splits on commas and reads backslashes, so both are escaped. */
export function helmSetValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/,/g, '\\,');
}

/**
 * `helm install` arguments for the e2e release. `--set-string` keeps every value a string
 * (`image.tag=1` would otherwise become a number); `--wait` returns once every Deployment is
 * available. The image is loaded into kind, never pulled, so the pull policy is IfNotPresent.
 */
export function helmInstallArgs(o: HelmInstallOptions): string[] {
  const values: [string, string][] = [
    ['image.repository', o.image.repository],
    ['image.tag', o.image.tag],
    ['image.pullPolicy', 'IfNotPresent'],
    ['tenantDatabase.existingSecret', o.tenantDatabaseSecret],
    // The admin URL's short host resolves only in the release's namespace; tenants' workloads
    // live in their own namespaces and need the fully qualified name.
    ['tenantDatabase.host', `postgres.${o.namespace}.svc.cluster.local`],
    ['gateway.publicUrl', o.gatewayPublicUrl],
  ];
  return [
    'install',
    o.release,
    o.chart,
    '--namespace',
    o.namespace,
    '--wait',
    '--timeout',
    o.timeout,
    ...values.flatMap(([key, value]) => ['--set-string', `${key}=${helmSetValue(value)}`]),
  ];
}
