import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster } from './cluster.js';
import type { E2eConfig } from './config.js';
import {
  clusterDiagnostics,
  podLogCommands,
  type DiagnosticCommand,
} from './diagnostics-commands.js';
import { run } from './exec.js';
import { secrets } from './redact.js';

/**
 * After a failure: the cluster's state, descriptions and the logs of every pod (but
 * PostgreSQL's), each redacted, printed to stdout and written to `artifactsDir` (the workflow
 * uploads it). Never throws: a command that fails leaves its error in place of its output.
 */
export async function dumpDiagnostics(opts: {
  config: E2eConfig;
  cluster: Cluster | undefined;
  systemNamespace: string;
  release: string;
  tenantNamespaces: string[];
}): Promise<void> {
  const { config } = opts;
  mkdirSync(config.artifactsDir, { recursive: true });
  const commands: DiagnosticCommand[] = clusterDiagnostics(opts);
  for (const ns of [opts.systemNamespace, ...opts.tenantNamespaces]) {
    const pods = await opts.cluster?.podNames(ns).catch(() => []);
    commands.push(...podLogCommands(ns, pods ?? []));
  }
  const env = { ...process.env, KUBECONFIG: config.kubeconfig };
  for (const c of commands) {
    const file = c.tool === 'kubectl' ? config.kubectl : config.helm;
    let text: string;
    try {
      const { stdout, stderr } = await run(file, c.args, { env, timeoutMs: 60_000 });
      text = stdout + (stderr ? `\n[stderr]\n${stderr}` : '');
    } catch (err) {
      text = `[failed] ${(err as Error).message}`;
    }
    const redacted = secrets.redact(text);
    writeFileSync(join(config.artifactsDir, `${c.name}.txt`), redacted);
    console.log(`\n===== ${c.tool} ${c.args.join(' ')} =====\n${redacted}`);
  }
  console.log(`\ndiagnostics written to ${config.artifactsDir}`);
}
