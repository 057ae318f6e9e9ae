import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

const b64 = (file: string): string => readFileSync(file).toString('base64');

/** Writes a kubeconfig for a client-certificate identity; mode 0600, it holds a private key. */
export function writeKubeconfig(opts: {
  file: string;
  server: string;
  caCert: string;
  clientCert: string;
  clientKey: string;
  user: string;
}): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'aiplane-local',
        cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caCert) },
      },
    ],
    users: [
      {
        name: opts.user,
        user: {
          'client-certificate-data': b64(opts.clientCert),
          'client-key-data': b64(opts.clientKey),
        },
      },
    ],
    contexts: [{ name: 'aiplane-local', context: { cluster: 'aiplane-local', user: opts.user } }],
    'current-context': 'aiplane-local',
  };
  writeFileSync(opts.file, stringify(config), { mode: 0o600 });
}
