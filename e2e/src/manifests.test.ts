import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot, versions } from '@aiplane/hack';
import { NAMESPACE, SERVICES } from './config.js';
import { API_DATABASE } from './platform-secrets.js';
import { IN_CLUSTER_ISSUER, REALM } from './platform.js';

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string }[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
}
interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: {
    template?: { spec: { containers: Container[] } };
    ports?: { port: number; targetPort: string | number }[];
    selector?: Record<string, unknown>;
  };
}

function manifests(file: string): Manifest[] {
  const text = readFileSync(join(repoRoot, 'e2e', 'manifests', file), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as Manifest);
}

function only<T>(items: T[], what: string): T {
  assert.equal(items.length, 1, `exactly one ${what}`);
  return items[0] as T;
}

const env = (c: Container, name: string) => c.env?.find((e) => e.name === name)?.value;
const port = (c: Container, name: string) => c.ports?.find((p) => p.name === name)?.containerPort;

describe('the PostgreSQL and Keycloak manifests of the e2e run', function () {
  const postgres = manifests('postgres.yaml');
  const keycloak = manifests('keycloak.yaml');
  const kcDeployment = only(
    keycloak.filter((m) => m.kind === 'Deployment'),
    'Keycloak Deployment',
  );
  const kc = only(kcDeployment.spec.template?.spec.containers ?? [], 'Keycloak container');

  it(`puts everything in ${NAMESPACE}, next to the release`, function () {
    for (const m of [...postgres, ...keycloak]) {
      assert.equal(m.metadata.namespace, NAMESPACE, `${m.kind}/${m.metadata.name}`);
    }
  });

  it('runs the Keycloak version the local Keycloak runs (hack/lib/versions.sh), in dev mode', function () {
    assert.equal(kc.image, `quay.io/keycloak/keycloak:${versions().KEYCLOAK_VERSION}`);
    assert.deepEqual(kc.args, ['start-dev']);
  });

  it("fixes Keycloak's issuer to the chart's default identityProvider address", function () {
    const values = parse(
      readFileSync(join(repoRoot, 'charts', 'aiplane', 'values.yaml'), 'utf8'),
    ) as { identityProvider: { url: string; realm: string; issuer: string } };
    const hostname = env(kc, 'KC_HOSTNAME');
    assert.equal(hostname, values.identityProvider.url);
    assert.equal(values.identityProvider.realm, REALM);
    assert.equal(values.identityProvider.issuer, '', 'the chart derives the issuer from the url');
    assert.equal(`${hostname}/realms/${REALM}`, IN_CLUSTER_ISSUER);
  });

  it('reports readiness on the management port (9000) at /health/ready', function () {
    assert.equal(env(kc, 'KC_HEALTH_ENABLED'), 'true');
    assert.equal(kc.readinessProbe?.httpGet?.path, '/health/ready');
    const probePort = kc.readinessProbe?.httpGet?.port;
    assert.equal(typeof probePort === 'number' ? probePort : port(kc, String(probePort)), 9000);
  });

  it('serves Keycloak and PostgreSQL under the Service names and ports the suite and the chart use', function () {
    const services = [...postgres, ...keycloak].filter((m) => m.kind === 'Service');
    const byName = new Map(services.map((s) => [s.metadata.name, s]));
    const pgDeployment = only(
      postgres.filter((m) => m.kind === 'Deployment'),
      'PostgreSQL Deployment',
    );
    const pg = only(pgDeployment.spec.template?.spec.containers ?? [], 'PostgreSQL container');
    for (const [service, container] of [
      [SERVICES.keycloak, kc],
      [SERVICES.postgres, pg],
    ] as const) {
      const s = byName.get(service.name);
      assert.ok(s, `Service ${service.name}`);
      const p = only(s.spec.ports ?? [], `port of ${service.name}`);
      assert.equal(p.port, service.port);
      assert.equal(port(container, String(p.targetPort)), service.port);
    }
  });

  it("creates the API's database at PostgreSQL's first start, on PostgreSQL 17 with pgvector", function () {
    const pg = postgres.find((m) => m.kind === 'Deployment')?.spec.template?.spec.containers[0];
    assert.equal(pg?.image, 'docker.io/pgvector/pgvector:0.8.0-pg17');
    assert.equal(pg && env(pg, 'POSTGRES_DB'), API_DATABASE);
  });
});
