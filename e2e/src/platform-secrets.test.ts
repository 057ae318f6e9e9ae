import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { loadApiConfig } from '@aiplane/api';
import { DEV_USERS, repoRoot } from '@aiplane/hack';
import {
  chartSecrets,
  generateSecrets,
  infraSecrets,
  postgresUrl,
  randomPassword,
  secretValues,
  TENANT_DATABASE_SECRET,
  type SecretSpec,
} from './platform-secrets.js';

const CLIENTS = { apiClientSecret: 'api-client-secret-x', operatorClientSecret: 'op-secret-y' };

function find(specs: SecretSpec[], name: string): Record<string, string> {
  const s = specs.find((x) => x.name === name);
  assert.ok(s, `no Secret ${name} among ${specs.map((x) => x.name).join(', ')}`);
  return s.stringData;
}

describe('secrets of an e2e run', function () {
  it('makes a credential keyring of one key k1 that decodes to exactly 32 bytes', function () {
    const { credentialKeys } = generateSecrets();
    const m = /^k1:([A-Za-z0-9+/]+={0,2})$/.exec(credentialKeys);
    assert.ok(m, 'the keyring has the form k1:<base64>');
    assert.equal(Buffer.from(m[1] as string, 'base64').length, 32);
  });

  it('gives a configuration the API accepts (keyring and database URL as the chart passes them)', function () {
    const s = generateSecrets();
    const chart = chartSecrets(s, CLIENTS);
    const config = loadApiConfig({
      AIPLANE_DATABASE_URL: find(chart, 'aiplane-database').url,
      AIPLANE_CREDENTIAL_KEYS: find(chart, 'aiplane-credential-keys').keys,
      AIPLANE_OIDC_ISSUER: 'http://keycloak:8080/realms/aiplane',
      AIPLANE_IDP_URL: 'http://keycloak:8080',
      AIPLANE_IDP_CLIENT_SECRET: find(chart, 'aiplane-identity-provider')['api-client-secret'],
    });
    assert.equal(config.databaseUrl, find(chart, 'aiplane-database').url);
  });

  it('makes URL-safe passwords of 32 characters, different every time', function () {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const p = randomPassword();
      assert.match(p, /^[A-Za-z0-9_-]{32}$/);
      seen.add(p);
    }
    assert.equal(seen.size, 50);
    const a = generateSecrets();
    const b = generateSecrets();
    assert.notEqual(a.postgresPassword, b.postgresPassword);
    assert.notEqual(a.credentialKeys, b.credentialKeys);
  });

  it('has a password for every dev user the Keycloak bootstrap creates, all distinct', function () {
    const s = generateSecrets();
    assert.deepEqual(Object.keys(s.devUserPasswords).sort(), [...DEV_USERS].sort());
    assert.equal(new Set(Object.values(s.devUserPasswords)).size, DEV_USERS.length);
  });

  it('lists every generated secret for redaction, the bare key material included', function () {
    const s = generateSecrets();
    const values = secretValues(s);
    const key = s.credentialKeys.slice(3);
    for (const v of [
      s.postgresPassword,
      s.keycloakAdmin.password,
      s.credentialKeys,
      key,
      s.mcpCredential,
      ...Object.values(s.devUserPasswords),
    ]) {
      assert.ok(values.includes(v));
    }
  });

  it('builds superuser URLs for the in-cluster Service and for a local port-forward', function () {
    assert.equal(
      postgresUrl('pw_-1', 'aiplane'),
      'postgres://postgres:pw_-1@postgres:5432/aiplane',
    );
    assert.equal(
      postgresUrl('pw', 'postgres', '127.0.0.1', 40000),
      'postgres://postgres:pw@127.0.0.1:40000/postgres',
    );
  });

  it("creates the chart's Secrets under the names and keys of charts/aiplane/values.yaml", function () {
    const values = parse(
      readFileSync(join(repoRoot, 'charts', 'aiplane', 'values.yaml'), 'utf8'),
    ) as {
      database: { existingSecret: string; urlKey: string };
      credentialKeys: { existingSecret: string; key: string };
      identityProvider: {
        existingSecret: string;
        api: { clientSecretKey: string };
        operator: { clientSecretKey: string };
      };
      tenantDatabase: { adminUrlKey: string };
    };
    const s = generateSecrets();
    const chart = chartSecrets(s, CLIENTS);
    assert.equal(
      find(chart, values.database.existingSecret)[values.database.urlKey],
      postgresUrl(s.postgresPassword, 'aiplane'),
    );
    assert.equal(
      find(chart, values.credentialKeys.existingSecret)[values.credentialKeys.key],
      s.credentialKeys,
    );
    const idp = find(chart, values.identityProvider.existingSecret);
    assert.equal(idp[values.identityProvider.api.clientSecretKey], CLIENTS.apiClientSecret);
    assert.equal(
      idp[values.identityProvider.operator.clientSecretKey],
      CLIENTS.operatorClientSecret,
    );
    assert.equal(
      find(chart, TENANT_DATABASE_SECRET)[values.tenantDatabase.adminUrlKey],
      postgresUrl(s.postgresPassword, 'postgres'),
    );
  });

  it('creates every Secret key the PostgreSQL and Keycloak manifests read, and no other', function () {
    const refs = new Set<string>();
    for (const file of ['postgres.yaml', 'keycloak.yaml']) {
      const text = readFileSync(join(repoRoot, 'e2e', 'manifests', file), 'utf8');
      for (const doc of parseAllDocuments(text)) {
        JSON.stringify(doc.toJS(), (k, v: unknown) => {
          if (k === 'secretKeyRef') {
            const ref = v as { name: string; key: string };
            refs.add(`${ref.name}/${ref.key}`);
          }
          return v;
        });
      }
    }
    const made = infraSecrets(generateSecrets()).flatMap((s) =>
      Object.keys(s.stringData).map((k) => `${s.name}/${k}`),
    );
    assert.deepEqual([...refs].sort(), made.sort());
  });
});
