import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import {
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  loadAllYaml,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { generatePki, type Pki } from './certs.js';
import { writeKubeconfig } from './kubeconfig.js';
import { binaryPaths, repoRoot, type BinaryPaths } from './paths.js';
import { freePort, waitFor } from './ports.js';
import { startProcess, type ManagedProcess } from './process.js';

type CrdStatus = KubernetesObject & {
  status?: { conditions?: { type: string; status: string }[] };
};

export interface ControlPlaneOptions {
  /** Directory for data, certificates, logs and the kubeconfig; created if missing. */
  dir: string;
  /** Install the CRDs from crds/generated (default true). */
  installCrds?: boolean;
}

/**
 * Real etcd, kube-apiserver and kube-controller-manager on loopback, like controller-runtime's
 * envtest plus the controller-manager (namespace deletion and garbage collection need it).
 * There is no scheduler and no kubelet: pods are created but never run.
 */
export class LocalControlPlane {
  readonly dir: string;
  readonly kubeconfigPath: string;
  readonly bins: BinaryPaths;
  private pki?: Pki;
  private etcd?: ManagedProcess;
  private apiserver?: ManagedProcess;
  private controllerManager?: ManagedProcess;
  private etcdPort = 0;
  private apiPort = 0;
  private readonly installCrds: boolean;

  constructor(opts: ControlPlaneOptions) {
    this.dir = opts.dir;
    this.kubeconfigPath = join(opts.dir, 'kubeconfig');
    this.installCrds = opts.installCrds ?? true;
    this.bins = binaryPaths();
  }

  get server(): string {
    return `https://127.0.0.1:${this.apiPort}`;
  }

  get logDir(): string {
    return join(this.dir, 'logs');
  }

  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromFile(this.kubeconfigPath);
    return kc;
  }

  async start(): Promise<void> {
    const { etcd, kubeApiserver, kubeControllerManager, kubectl } = this.bins;
    for (const bin of [etcd, kubeApiserver, kubeControllerManager, kubectl]) {
      if (!existsSync(bin)) throw new Error(`${bin} is missing: run make setup`);
    }
    mkdirSync(this.logDir, { recursive: true });
    this.pki = generatePki(join(this.dir, 'pki'));
    this.etcdPort = await freePort();
    this.apiPort = await freePort();
    await this.startEtcd();
    await this.startApiserver();
    writeKubeconfig({
      file: this.kubeconfigPath,
      server: this.server,
      caCert: this.pki.caCert,
      clientCert: this.pki.adminCert,
      clientKey: this.pki.adminKey,
      user: 'aiplane-admin',
    });
    await this.startControllerManager();
    if (this.installCrds) await this.applyCrds();
  }

  private async startEtcd(): Promise<void> {
    const peerPort = await freePort();
    const url = `http://127.0.0.1:${this.etcdPort}`;
    this.etcd = startProcess({
      name: 'etcd',
      command: this.bins.etcd,
      args: [
        `--data-dir=${join(this.dir, 'etcd')}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      logFile: join(this.logDir, 'etcd.log'),
    });
    await waitFor('etcd health', async () => (await fetch(`${url}/health`)).ok, {
      timeoutMs: 30_000,
    });
  }

  /** Starts (or restarts, on the same port and data) the kube-apiserver and waits for /readyz. */
  async startApiserver(): Promise<void> {
    const pki = this.requirePki();
    this.apiserver = startProcess({
      name: 'kube-apiserver',
      command: this.bins.kubeApiserver,
      args: [
        `--etcd-servers=http://127.0.0.1:${this.etcdPort}`,
        `--cert-dir=${join(this.dir, 'apiserver-certs')}`,
        `--tls-cert-file=${pki.serverCert}`,
        `--tls-private-key-file=${pki.serverKey}`,
        `--client-ca-file=${pki.caCert}`,
        `--secure-port=${this.apiPort}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        '--service-cluster-ip-range=10.0.0.0/16',
        '--allow-privileged=true',
        '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${pki.serviceAccountPub}`,
        `--service-account-signing-key-file=${pki.serviceAccountKey}`,
        '--endpoint-reconciler-type=none',
        '--v=1',
      ],
      logFile: join(this.logDir, 'kube-apiserver.log'),
    });
    const exited = this.apiserver.exited;
    await waitFor(
      'kube-apiserver /readyz',
      async () => {
        if (this.apiserver?.child.exitCode !== null) {
          throw new Error(`kube-apiserver exited; see ${join(this.logDir, 'kube-apiserver.log')}`);
        }
        return (await this.get('/readyz')) === 200;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    void exited;
  }

  /** Stops the kube-apiserver only (etcd and data stay), for restart tests. */
  async stopApiserver(): Promise<void> {
    await this.apiserver?.stop('SIGTERM', 10_000);
    this.apiserver = undefined;
  }

  private async startControllerManager(): Promise<void> {
    const pki = this.requirePki();
    const kubeconfig = join(this.dir, 'controller-manager.kubeconfig');
    writeKubeconfig({
      file: kubeconfig,
      server: this.server,
      caCert: pki.caCert,
      clientCert: pki.controllerManagerCert,
      clientKey: pki.controllerManagerKey,
      user: 'system:kube-controller-manager',
    });
    this.controllerManager = startProcess({
      name: 'kube-controller-manager',
      command: this.bins.kubeControllerManager,
      args: [
        `--kubeconfig=${kubeconfig}`,
        '--leader-elect=false',
        '--secure-port=0',
        `--service-account-private-key-file=${pki.serviceAccountKey}`,
        `--root-ca-file=${pki.caCert}`,
        '--use-service-account-credentials=true',
        '--service-cluster-ip-range=10.0.0.0/16',
        '--controllers=*,-bootstrapsigner,-tokencleaner,-nodeipam,-nodelifecycle,-cloud-node-lifecycle',
        '--concurrent-gc-syncs=5',
        '--v=1',
      ],
      logFile: join(this.logDir, 'kube-controller-manager.log'),
    });
    // Ready when the namespace controller's service-account sidekick has made `default`'s SA.
    const kc = this.kubeConfig();
    const api = KubernetesObjectApi.makeApiClient(kc);
    await waitFor('kube-controller-manager (default service account)', async () => {
      if (this.controllerManager?.child.exitCode !== null) {
        throw new Error('kube-controller-manager exited; see its log');
      }
      await api.read({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'default', namespace: 'default' },
      });
      return true;
    });
  }

  /** Creates or updates every CRD under crds/generated and waits until each is Established. */
  async applyCrds(): Promise<void> {
    const dir = join(repoRoot, 'crds', 'generated');
    const api = KubernetesObjectApi.makeApiClient(this.kubeConfig());
    const names: string[] = [];
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()) {
      // loadAllYaml deserializes into client-node's models; a plain object would lose the
      // JSON-only keys (`x-kubernetes-validations`, `default`) when the client serializes it.
      for (const obj of loadAllYaml(readFileSync(join(dir, file), 'utf8')) as KubernetesObject[]) {
        await api.patch(
          obj,
          undefined,
          undefined,
          'aiplane-hack',
          true,
          PatchStrategy.ServerSideApply,
        );
        names.push(obj.metadata?.name ?? '');
      }
    }
    for (const name of names) {
      await waitFor(`CRD ${name} Established`, async () => {
        const crd = await api.read<CrdStatus>({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name },
        });
        return !!crd.status?.conditions?.some(
          (c) => c.type === 'Established' && c.status === 'True',
        );
      });
    }
  }

  async stop(): Promise<void> {
    await this.controllerManager?.stop();
    await this.apiserver?.stop();
    await this.etcd?.stop();
  }

  private requirePki(): Pki {
    if (!this.pki) throw new Error('control plane not started');
    return this.pki;
  }

  /** GET against the apiserver as admin; resolves the HTTP status. */
  private get(path: string): Promise<number> {
    const pki = this.requirePki();
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.apiPort,
          path,
          ca: readFileSync(pki.caCert),
          cert: readFileSync(pki.adminCert),
          key: readFileSync(pki.adminKey),
          timeout: 2000,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  }
}
