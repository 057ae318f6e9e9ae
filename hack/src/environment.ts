import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalControlPlane } from './control-plane.js';
import { LocalKeycloak } from './keycloak.js';
import type { KeycloakInfo } from './keycloak-bootstrap.js';
import { LocalPostgres, type PostgresInfo } from './postgres.js';

/** What a running local environment offers; written to `<dir>/env.json` (mode 0600). */
export interface EnvironmentInfo {
  dir: string;
  kubeconfig: string;
  apiserver: string;
  kubectl: string;
  postgres: PostgresInfo;
  keycloak: KeycloakInfo;
  logs: string;
  /** The API's credential keyring (AIPLANE_CREDENTIAL_KEYS), fresh for each environment. */
  credentialKeys: string;
}

/** The local control plane plus the services the project needs, started and stopped together. */
export class LocalEnvironment {
  readonly controlPlane: LocalControlPlane;
  readonly postgres: LocalPostgres;
  readonly keycloak: LocalKeycloak;
  private readonly credentialKeys = `local:${randomBytes(32).toString('base64')}`;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    // Traversable (not listable) by the postgres system user; secrets inside stay 0600/0700.
    chmodSync(dir, 0o711);
    this.controlPlane = new LocalControlPlane({ dir: join(dir, 'kube') });
    this.postgres = new LocalPostgres(join(dir, 'postgres'), join(dir, 'logs'));
    this.keycloak = new LocalKeycloak({ dir: join(dir, 'keycloak'), logDir: join(dir, 'logs') });
  }

  async start(): Promise<EnvironmentInfo> {
    // The control plane and PostgreSQL start side by side; Keycloak as soon as PostgreSQL is
    // up (its database lives there). Wait for all before stopping anything on a failure, so
    // nothing is left starting after stop().
    const results = await Promise.allSettled([
      this.controlPlane.start(),
      this.postgres.start().then(async (pg) => {
        await this.keycloak.start(pg);
        await this.keycloak.bootstrap();
      }),
    ]);
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) {
      await this.stop();
      throw failure.reason;
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
      keycloak: this.keycloak.info,
      logs: this.controlPlane.logDir,
      credentialKeys: this.credentialKeys,
    };
  }

  async stop(): Promise<void> {
    // Keycloak first: it would log errors while its database goes away.
    await this.keycloak.stop();
    await Promise.allSettled([this.controlPlane.stop(), this.postgres.stop()]);
  }
}
