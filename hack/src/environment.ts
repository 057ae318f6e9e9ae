import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalControlPlane } from './control-plane.js';
import { LocalPostgres, type PostgresInfo } from './postgres.js';

/** What a running local environment offers; written to `<dir>/env.json` (mode 0600). */
export interface EnvironmentInfo {
  dir: string;
  kubeconfig: string;
  apiserver: string;
  kubectl: string;
  postgres: PostgresInfo;
  logs: string;
}

/** The local control plane plus the services the project needs, started and stopped together. */
export class LocalEnvironment {
  readonly controlPlane: LocalControlPlane;
  readonly postgres: LocalPostgres;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    // Traversable (not listable) by the postgres system user; secrets inside stay 0600/0700.
    chmodSync(dir, 0o711);
    this.controlPlane = new LocalControlPlane({ dir: join(dir, 'kube') });
    this.postgres = new LocalPostgres(join(dir, 'postgres'), join(dir, 'logs'));
  }

  async start(): Promise<EnvironmentInfo> {
    try {
      // Independent: start side by side.
      await Promise.all([this.controlPlane.start(), this.postgres.start()]);
    } catch (err) {
      await this.stop();
      throw err;
    }
    const info = this.info();
    writeFileSync(join(this.dir, 'env.json'), JSON.stringify(info, null, 2), { mode: 0o600 });
    return info;
  }

  info(): EnvironmentInfo {
    return {
      dir: this.dir,
      kubeconfig: this.controlPlane.kubeconfigPath,
      apiserver: this.controlPlane.server,
      kubectl: this.controlPlane.bins.kubectl,
      postgres: this.postgres.connection,
      logs: this.controlPlane.logDir,
    };
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.controlPlane.stop(), this.postgres.stop()]);
  }
}
