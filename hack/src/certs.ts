import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Files of the local control plane's throwaway PKI. */
export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  adminCert: string;
  adminKey: string;
  controllerManagerCert: string;
  controllerManagerKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function ecKey(cwd: string, file: string): void {
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file], cwd);
}

function signed(cwd: string, name: string, subject: string, ext: string): void {
  ecKey(cwd, `${name}.key`);
  openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], cwd);
  writeFileSync(join(cwd, `${name}.ext`), ext);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '30',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    ],
    cwd,
  );
}

/**
 * Generates a CA, the apiserver's serving certificate, two client identities (an admin in
 * system:masters and the controller-manager) and the service-account signing key pair.
 */
export function generatePki(dir: string): Pki {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  ecKey(dir, 'ca.key');
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      '/CN=aiplane-local-ca',
      '-days',
      '30',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.crt',
    ],
    dir,
  );
  signed(
    dir,
    'apiserver',
    '/CN=kube-apiserver',
    'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes.default.svc\n' +
      'extendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n',
  );
  const client =
    'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n';
  signed(dir, 'admin', '/O=system:masters/CN=aiplane-admin', client);
  signed(dir, 'controller-manager', '/CN=system:kube-controller-manager', client);
  ecKey(dir, 'sa.key');
  openssl(['ec', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  const f = (n: string): string => join(dir, n);
  return {
    dir,
    caCert: f('ca.crt'),
    caKey: f('ca.key'),
    serverCert: f('apiserver.crt'),
    serverKey: f('apiserver.key'),
    adminCert: f('admin.crt'),
    adminKey: f('admin.key'),
    controllerManagerCert: f('controller-manager.crt'),
    controllerManagerKey: f('controller-manager.key'),
    serviceAccountKey: f('sa.key'),
    serviceAccountPub: f('sa.pub'),
  };
}
