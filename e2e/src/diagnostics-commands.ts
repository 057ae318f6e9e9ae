/** One diagnostics command: a file name, the tool, and its arguments (no shell). */
export interface DiagnosticCommand {
  /** File name in the artifacts directory, also the heading printed before the output. */
  name: string;
  tool: 'kubectl' | 'helm';
  args: string[];
}

/**
 * The cluster-wide picture after a failure. Nothing here reads a Secret's data: `get all`
 * does not include Secrets, and `describe` shows only the names of referenced keys.
 */
export function clusterDiagnostics(opts: {
  systemNamespace: string;
  release: string;
  tenantNamespaces: string[];
}): DiagnosticCommand[] {
  const namespaces = [opts.systemNamespace, ...opts.tenantNamespaces];
  return [
    { name: 'nodes', tool: 'kubectl', args: ['get', 'nodes', '-o', 'wide'] },
    { name: 'all', tool: 'kubectl', args: ['get', 'all', '--all-namespaces', '-o', 'wide'] },
    {
      name: 'aiplane-resources',
      tool: 'kubectl',
      args: ['get', 'tenantlifecycles,mcpservers', '--all-namespaces', '-o', 'yaml'],
    },
    {
      name: 'events',
      tool: 'kubectl',
      args: ['get', 'events', '--all-namespaces', '--sort-by=.lastTimestamp'],
    },
    {
      name: 'helm-status',
      tool: 'helm',
      args: ['status', opts.release, '--namespace', opts.systemNamespace, '--show-resources'],
    },
    ...namespaces.flatMap((ns): DiagnosticCommand[] => [
      {
        name: `describe-pods-${ns}`,
        tool: 'kubectl',
        args: ['describe', 'pods', '--namespace', ns],
      },
      {
        name: `describe-deployments-${ns}`,
        tool: 'kubectl',
        args: ['describe', 'deployments', '--namespace', ns],
      },
    ]),
  ];
}

/** The pods whose logs are never collected (PostgreSQL may log statements with passwords). */
const NO_LOGS = /^postgres-/;

/**
 * Logs of each pod (every container, the current and the previous run) in a namespace. `pods`
 * are pod names as `kubectl get pods -o name` prints them, with or without `pod/`.
 */
export function podLogCommands(namespace: string, pods: string[]): DiagnosticCommand[] {
  return pods
    .map((p) => p.trim().replace(/^pod\//, ''))
    .filter((p) => p !== '' && !NO_LOGS.test(p))
    .flatMap((pod): DiagnosticCommand[] => {
      const base = ['logs', '--namespace', namespace, pod, '--all-containers', '--timestamps'];
      return [
        { name: `logs-${namespace}-${pod}`, tool: 'kubectl', args: [...base, '--tail=2000'] },
        {
          name: `logs-${namespace}-${pod}-previous`,
          tool: 'kubectl',
          args: [...base, '--previous', '--tail=500'],
        },
      ];
    });
}
