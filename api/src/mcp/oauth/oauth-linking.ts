import {
  exchangeAuthorization,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { mcpWorkloadUrl, type McpServer } from '@aiplane/crds';
import {
  upstreamTarget,
  type UpstreamDialers,
  discoverAuthorization,
  probeChallenge,
  oauthFetch,
  OAuthSetupError,
  oauthErrorCode,
  oauthUpstreamError,
  redactSecrets,
  type OAuthStep,
  clientInformation,
  ensureClient,
  serializeTokenSet,
  tokenSetFrom,
  serverAccessDenied,
} from '@aiplane/lib/mcp';
import type { Logger } from '@aiplane/lib';
import { ApiError } from '@aiplane/lib/errors';
import type { CredentialStore } from '@aiplane/lib/store';
import { gatewayUrl } from '../server-record.js';
import type { OAuthStateStore } from './state-store.js';
import { hashStateToken, newStateToken } from './state-token.js';

/** `remoteFetch` also dials every authorization server (addresses checked at dial time). */
export interface McpOAuthLinkingOptions extends UpstreamDialers {
  credentials: CredentialStore;
  states: OAuthStateStore;
  /** `{gateway_base}`: a managed server's resource may be named by its gateway URL. */
  gatewayBase: string | null;
  /** `AIPLANE_MCP_OAUTH_REDIRECT_URL`; null when the deployment publishes none. */
  redirectUrl: string | null;
  allowLoopback: boolean;
  /** Budget of each request to the MCP server or its authorization server. */
  timeoutMs: number;
  logger: Logger;
  now?: () => Date;
}

export interface Caller {
  userId: string;
  organizationId: string;
}

/**
 * OAuth linking of a user's upstream credential (spec: "OAuth linking state token";
 * docs/adr/0011-mcp-oauth-linking.md): `start` finds how the server wants to be authorized
 * and answers where to send the browser; `complete` consumes the state and stores the tokens
 * the code is exchanged for.
 */
export class McpOAuthLinking {
  private readonly now: () => Date;

  constructor(private readonly opts: McpOAuthLinkingOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  async start(
    server: McpServer,
    caller: Caller,
  ): Promise<{ authorize_url: string; state: string }> {
    const redirectUri = this.opts.redirectUrl;
    if (redirectUri === null) {
      throw new ApiError(
        'mcp_oauth_not_configured',
        'this deployment publishes no OAuth return address (AIPLANE_MCP_OAUTH_REDIRECT_URL)',
      );
    }
    const serverId = server.metadata.uid ?? '';
    const target = upstreamTarget(server, this.opts);
    const fetch = oauthFetch(target.fetch, this.opts.timeoutMs);
    let challenge;
    try {
      challenge = await probeChallenge(target.url, fetch);
    } catch (error) {
      this.log(serverId, 'discovery', error, []);
      throw new ApiError('mcp_server_unreachable', 'the MCP server did not answer; retry');
    }
    const notOAuth = new ApiError(
      'mcp_server_does_not_use_oauth',
      'the MCP server answered without an OAuth challenge (a 401 with a Bearer challenge and protected resource metadata); link a credential with PUT /v1/mcp/servers/{id}/credential',
    );
    if (challenge === undefined) throw notOAuth;

    const remote = oauthFetch(this.opts.remoteFetch, this.opts.timeoutMs);
    const authorization = await this.step(serverId, 'discovery', () =>
      discoverAuthorization(
        {
          url: target.url,
          serverFetch: target.fetch,
          remoteFetch: this.opts.remoteFetch,
          // A managed server's metadata must name it too: by its Service address or its
          // gateway URL, never another service's resource (confused deputy, RFC 8707).
          checkResource: true,
          ...(server.spec.runtime === 'managed'
            ? {
                resourceNames: [
                  mcpWorkloadUrl(server),
                  ...(this.opts.gatewayBase
                    ? [gatewayUrl(this.opts.gatewayBase, serverId) ?? '']
                    : []),
                ],
              }
            : {}),
          allowLoopback: this.opts.allowLoopback,
          timeoutMs: this.opts.timeoutMs,
        },
        challenge,
      ),
    );
    if (authorization === undefined) throw notOAuth;
    const client = await this.step(serverId, 'registration', () =>
      ensureClient({
        clients: this.opts.credentials.oauthClients,
        serverId,
        organizationId: caller.organizationId,
        authorization,
        redirectUri,
        fetch: remote,
        allowLoopback: this.opts.allowLoopback,
        now: this.now(),
      }),
    );
    const state = newStateToken();
    const { authorizationUrl, codeVerifier } = await this.step(serverId, 'authorization', () =>
      startAuthorization(authorization.issuer, {
        metadata: authorization.metadata,
        clientInformation: clientInformation(client),
        redirectUrl: redirectUri,
        ...(authorization.scope === undefined ? {} : { scope: authorization.scope }),
        state,
        resource: authorization.resource,
      }),
    );
    await this.opts.states.issue(hashStateToken(state), {
      serverId,
      userId: caller.userId,
      organizationId: caller.organizationId,
      clientRef: client.id,
      codeVerifier,
      resource: authorization.resource,
      issuer: authorization.issuer,
      issRequired: authorization.issParameterSupported,
    });
    return { authorize_url: authorizationUrl.href, state };
  }

  /**
   * Consumes the state (before anything else can fail, so a repeated post is refused), then
   * exchanges the code with the PKCE verifier and the resource, and stores the token set as
   * the caller's OAuth credential. `serverExists` says whether the caller may still use the
   * server. Answers the server id.
   *
   * Mix-up defence (RFC 9207): the state is bound to the issuer linking started with, and the
   * registration used; an `iss` in the authorization response must equal that issuer, and it
   * must be there when the server advertised `authorization_response_iss_parameter_supported`.
   * Either failure is 400 mcp_oauth_state_invalid (the state is spent; start again), and the
   * code is never sent anywhere.
   */
  async complete(
    input: Caller & { state: string; code: string; iss?: string },
    serverExists: (serverId: string, organizationId: string) => Promise<boolean>,
  ): Promise<string> {
    const linking = await this.opts.states.consume(hashStateToken(input.state), input);
    if (linking === undefined) {
      throw new ApiError(
        'mcp_oauth_state_invalid',
        'the OAuth state is unknown, expired, already used, or not yours; start linking again',
      );
    }
    const { serverId } = linking;
    if (!(await serverExists(serverId, input.organizationId))) {
      throw serverAccessDenied();
    }
    const client = await this.opts.credentials.oauthClients.get(linking.clientRef);
    if (client === undefined) {
      throw oauthUpstreamError(
        'code exchange',
        new OAuthSetupError('the client registration is gone; start linking again'),
      );
    }
    const issuer = linking.issuer ?? client.issuer;
    const issProblem =
      client.issuer !== issuer
        ? 'the registration is of another authorization server'
        : input.iss !== undefined && input.iss !== issuer
          ? 'the authorization response names another issuer (iss)'
          : input.iss === undefined && linking.issRequired
            ? 'the authorization response carries no iss, which its server promised'
            : undefined;
    if (issProblem !== undefined) {
      this.opts.logger.info(
        { server: serverId, step: 'code exchange', reason: issProblem },
        'OAuth linking with an upstream MCP server failed',
      );
      throw new ApiError(
        'mcp_oauth_state_invalid',
        `the OAuth response does not belong to the authorization server linking was started with (${issProblem}); start linking again`,
      );
    }
    const secrets = [input.code, linking.codeVerifier, client.clientSecret];
    let tokens: OAuthTokens;
    try {
      tokens = await exchangeAuthorization(client.issuer, {
        metadata: client.metadata,
        clientInformation: clientInformation(client),
        authorizationCode: input.code,
        codeVerifier: linking.codeVerifier,
        redirectUri: client.redirectUri,
        ...(linking.resource === null ? {} : { resource: linking.resource }),
        fetchFn: oauthFetch(this.opts.remoteFetch, this.opts.timeoutMs),
      });
      if (tokens.token_type.toLowerCase() !== 'bearer') {
        throw new OAuthSetupError(`the authorization server issued a ${tokens.token_type} token`);
      }
    } catch (error) {
      this.log(serverId, 'code exchange', error, secrets);
      // The registration is no longer accepted: the next linking registers again.
      if (oauthErrorCode(error) === 'invalid_client')
        await this.opts.credentials.oauthClients.remove(client.id);
      throw oauthUpstreamError('code exchange', error);
    }
    const set = tokenSetFrom(
      tokens,
      {
        issuer: client.issuer,
        tokenEndpoint: client.metadata.token_endpoint,
        clientRef: client.id,
        clientId: client.clientId,
        resource: linking.resource,
      },
      this.now(),
    );
    await this.opts.credentials.put({
      serverId,
      userId: input.userId,
      organizationId: input.organizationId,
      kind: 'oauth',
      value: serializeTokenSet(set),
    });
    return serverId;
  }

  /** Runs one step; a failure is logged (secrets removed) and answered as 503. */
  private async step<T>(serverId: string, step: OAuthStep, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      this.log(serverId, step, error, []);
      throw oauthUpstreamError(step, error);
    }
  }

  private log(
    serverId: string,
    step: OAuthStep,
    error: unknown,
    secrets: (string | undefined)[],
  ): void {
    this.opts.logger.info(
      { server: serverId, step, cause: redactSecrets(error, secrets) },
      'OAuth linking with an upstream MCP server failed',
    );
  }
}
