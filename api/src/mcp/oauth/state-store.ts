import type { Knex } from 'knex';
import { openSecret, sealSecret, type Keyring } from '@aiplane/lib/crypto';

/** Spec (Limits): an OAuth `state` is valid for 10 minutes, single use. */
export const OAUTH_STATE_TTL_SECONDS = 600;

/** What an issued state token stands for. */
export interface OAuthLinkingState {
  serverId: string;
  userId: string;
  organizationId: string;
  /** The registered client (`mcp_oauth_clients.id`) the authorization was started with. */
  clientRef: string;
  /** The PKCE verifier, opened. */
  codeVerifier: string;
  /** The RFC 8707 resource indicator sent on authorize. */
  resource: string | null;
  /**
   * The issuer of the authorization server the linking was started with: the callback's `iss`
   * (RFC 9207) must equal it. Null only for a state issued before migration 0005.
   */
  issuer: string | null;
  /** Whether that server advertised `authorization_response_iss_parameter_supported`. */
  issRequired: boolean;
}

interface Row {
  state_hash: string;
  server_id: string;
  user_id: string;
  organization_id: string;
  client_ref: string;
  sealed_verifier: string;
  resource: string | null;
  issuer: string | null;
  iss_required: boolean;
  created_at: Date;
  expires_at: Date;
}

const aad = (stateHash: string) => `mcp-oauth-state:${stateHash}`;

/**
 * OAuth linking state tokens (spec: "OAuth linking state token"). Only the token's SHA-256
 * is stored, so a database reader cannot complete someone's linking; the PKCE verifier is
 * sealed, bound to that hash. Expiry is judged by the database clock.
 */
export class OAuthStateStore {
  constructor(
    private readonly db: Knex,
    private readonly keyring: Keyring,
  ) {}

  /** Records a new state for ten minutes; expired states are removed on the way. */
  async issue(stateHash: string, state: OAuthLinkingState): Promise<void> {
    await this.db('mcp_oauth_states').where('expires_at', '<=', this.db.fn.now()).delete();
    await this.db<Row>('mcp_oauth_states').insert({
      state_hash: stateHash,
      server_id: state.serverId,
      user_id: state.userId,
      organization_id: state.organizationId,
      client_ref: state.clientRef,
      sealed_verifier: sealSecret(this.keyring, state.codeVerifier, aad(stateHash)),
      resource: state.resource,
      issuer: state.issuer,
      iss_required: state.issRequired,
      expires_at: this.db.raw(`now() + interval '${OAUTH_STATE_TTL_SECONDS} seconds'`),
    });
  }

  /**
   * Consumes a state in one statement: it is deleted only when it is known, unexpired and the
   * caller's (user and organization), so of concurrent attempts exactly one gets it, and
   * another user's attempt leaves it in place. Undefined when nothing matched.
   */
  async consume(
    stateHash: string,
    caller: { userId: string; organizationId: string },
  ): Promise<OAuthLinkingState | undefined> {
    const rows: Row[] = await this.db<Row>('mcp_oauth_states')
      .where({
        state_hash: stateHash,
        user_id: caller.userId,
        organization_id: caller.organizationId,
      })
      .andWhere('expires_at', '>', this.db.fn.now())
      .delete('*');
    const row = rows[0];
    if (!row) return undefined;
    return {
      serverId: row.server_id,
      userId: row.user_id,
      organizationId: row.organization_id,
      clientRef: row.client_ref,
      codeVerifier: openSecret(this.keyring, row.sealed_verifier, aad(stateHash)),
      resource: row.resource,
      issuer: row.issuer,
      issRequired: row.iss_required,
    };
  }
}
