import assert from 'node:assert/strict';
import { connectionUri, type DatabaseCredentials, secretData } from './secret-data.js';

const creds: DatabaseCredentials = {
  host: 'postgres.aiplane-system.svc',
  port: 5432,
  database: 'tenant_acme',
  username: 'tenant_acme',
  password: 'Ab0-_xyz',
};

describe('connectionUri', () => {
  it('builds postgresql://user:password@host:port/database', () => {
    assert.equal(
      connectionUri(creds),
      'postgresql://tenant_acme:Ab0-_xyz@postgres.aiplane-system.svc:5432/tenant_acme',
    );
  });

  it('percent-encodes special characters in the user, password and database', () => {
    const special = { ...creds, username: 'u@x', password: 'p:/@?#%& é', database: 'd/b?' };
    const uri = connectionUri(special);
    assert.equal(
      uri,
      'postgresql://u%40x:p%3A%2F%40%3F%23%25%26%20%C3%A9@postgres.aiplane-system.svc:5432/d%2Fb%3F',
    );
    const parsed = new URL(uri);
    assert.equal(decodeURIComponent(parsed.username), special.username);
    assert.equal(decodeURIComponent(parsed.password), special.password);
    assert.equal(parsed.hostname, special.host);
    assert.equal(parsed.port, '5432');
    assert.equal(decodeURIComponent(parsed.pathname.slice(1)), special.database);
  });

  it('puts an IPv6 host in brackets', () => {
    assert.equal(
      connectionUri({ ...creds, host: 'fd00::1' }),
      'postgresql://tenant_acme:Ab0-_xyz@[fd00::1]:5432/tenant_acme',
    );
  });
});

describe('secretData', () => {
  it('holds host, port, database, username, password and uri as strings', () => {
    assert.deepEqual(secretData(creds), {
      host: 'postgres.aiplane-system.svc',
      port: '5432',
      database: 'tenant_acme',
      username: 'tenant_acme',
      password: 'Ab0-_xyz',
      uri: 'postgresql://tenant_acme:Ab0-_xyz@postgres.aiplane-system.svc:5432/tenant_acme',
    });
  });
});
