/** What a tenant needs to reach its dedicated database. */
export interface DatabaseCredentials {
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
}

/** The string data of the tenant's database Secret. */
export interface DatabaseSecretData {
  host: string;
  port: string;
  database: string;
  username: string;
  password: string;
  uri: string;
}

/**
 * `postgresql://user:password@host:port/database`, every part percent-encoded (an IPv6
 * address in brackets), as libpq and node-postgres parse it.
 */
export function connectionUri(creds: DatabaseCredentials): string {
  const host = creds.host.includes(':') ? `[${creds.host}]` : creds.host;
  const user = encodeURIComponent(creds.username);
  const password = encodeURIComponent(creds.password);
  return `postgresql://${user}:${password}@${host}:${creds.port}/${encodeURIComponent(creds.database)}`;
}

/** The Secret's keys: host, port, database, username, password and uri. */
export function secretData(creds: DatabaseCredentials): DatabaseSecretData {
  return {
    host: creds.host,
    port: String(creds.port),
    database: creds.database,
    username: creds.username,
    password: creds.password,
    uri: connectionUri(creds),
  };
}
