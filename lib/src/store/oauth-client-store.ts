import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { needsReseal, openSecret, sealSecret, type Keyring } from '../crypto/index.js';
import { notLive, type LiveScope } from './orphan-filter.js';

/** A client registered with an upstream's authorization server, secret opened. */
export interface OAuthClient {
  /** Our row id: what an OAuth credential names as `client_ref`. */
  id: string;
  serverId: string;
  issuer: string;
  /** The authorization server metadata as discovered at registration. */
  metadata: AuthorizationServerMetadata;
  redirectUri: string;
  clientId: string;
  clientSecret: string | undefined;
  tokenEndpointAuthMethod: string;
}

export interface NewOAuthClient extends Omit<OAuthClient, 'id'> {
  organizationId: string;
  /** When the authorization server lets the secret expire; null when it never does. */
  secretExpiresAt: Date | null;
}

interface Row {
  id: string;
  server_id: string;
  organization_id: string;
  issuer: string;
  metadata: AuthorizationServerMetadata;
  redirect_uri: string;
  client_id: string;
  sealed_secret: string | null;
  token_endpoint_auth_method: string;
  secret_expires_at: Date | null;
  created_at: Date;
}

const aad = (id: string) => `mcp-oauth-client:${id}`;

/**
 * Dynamic client registrations (RFC 7591), one shared by every user of a server and
 * authorization server, so each user does not register again. Rows are not changed once written
 * (a secret sealed with an older key is resealed); secrets are sealed with the credential keyring.
 */
export class OAuthClientStore {
  constructor(
    private readonly db: Knex,
    private readonly keyring: Keyring,
  ) {}

  /**
   * The newest usable registration for a server at an authorization server with this return
   * address (a registration is bound to its redirect URI), or undefined.
   */
  async current(input: {
    serverId: string;
    issuer: string;
    redirectUri: string;
    /** Registrations whose secret has expired by then are not answered. */
    validAt: Date;
  }): Promise<OAuthClient | undefined> {
    const row = await this.db<Row>('mcp_oauth_clients')
      .where({ server_id: input.serverId, issuer: input.issuer, redirect_uri: input.redirectUri })
      .andWhere((q) => {
        void q.whereNull('secret_expires_at').orWhere('secret_expires_at', '>', input.validAt);
      })
      .orderBy('created_at', 'desc')
      .first();
    return row ? this.toClient(row) : undefined;
  }

  async get(id: string): Promise<OAuthClient | undefined> {
    const row = await this.db<Row>('mcp_oauth_clients').where({ id }).first();
    return row ? this.toClient(row) : undefined;
  }

  async add(input: NewOAuthClient): Promise<OAuthClient> {
    const id = randomUUID();
    await this.db<Row>('mcp_oauth_clients').insert({
      id,
      server_id: input.serverId,
      organization_id: input.organizationId,
      issuer: input.issuer,
      metadata: input.metadata,
      redirect_uri: input.redirectUri,
      client_id: input.clientId,
      sealed_secret:
        input.clientSecret === undefined
          ? null
          : sealSecret(this.keyring, input.clientSecret, aad(id)),
      token_endpoint_auth_method: input.tokenEndpointAuthMethod,
      secret_expires_at: input.secretExpiresAt,
    });
    return { ...input, id };
  }

  /** Forgets a registration the authorization server no longer accepts (invalid_client). */
  async remove(id: string): Promise<void> {
    await this.db('mcp_oauth_clients').where({ id }).delete();
  }

  /**
   * Removes the registrations of servers that are not live, registered before the grace
   * period (rows are never updated, so `created_at` is their age); their linking states go
   * with them (ON DELETE CASCADE). Answers how many registrations.
   */
  async deleteForServersNotIn(scope: LiveScope): Promise<number> {
    return this.db('mcp_oauth_clients')
      .where(notLive(this.db, { key: 'server_id', time: 'created_at' }, scope))
      .delete();
  }

  /** Opens the secret; one sealed with an older key is resealed under the active key. */
  private async toClient(row: Row): Promise<OAuthClient> {
    const sealed = row.sealed_secret;
    const clientSecret =
      sealed === null ? undefined : openSecret(this.keyring, sealed, aad(row.id));
    if (sealed !== null && clientSecret !== undefined && needsReseal(this.keyring, sealed)) {
      await this.db('mcp_oauth_clients')
        .where({ id: row.id, sealed_secret: sealed })
        .update({ sealed_secret: sealSecret(this.keyring, clientSecret, aad(row.id)) });
    }
    return {
      id: row.id,
      serverId: row.server_id,
      issuer: row.issuer,
      metadata: row.metadata,
      redirectUri: row.redirect_uri,
      clientId: row.client_id,
      clientSecret,
      tokenEndpointAuthMethod: row.token_endpoint_auth_method,
    };
  }
}
