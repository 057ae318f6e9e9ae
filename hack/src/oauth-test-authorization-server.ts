import { randomBytes, randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  InvalidGrantError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
  OAuthTokenVerifier,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import express, { type Request, type Response } from 'express';

export interface OAuthTestAuthorizationServerOptions {
  /** Lifetime of the access tokens it issues; default 3600 s (see `setAccessTokenTtl`). */
  accessTokenTtlSeconds?: number;
  /**
   * RFC 9207: advertise `authorization_response_iss_parameter_supported` and add `iss` to
   * every authorization response.
   */
  issParameter?: boolean;
  /** Fields that replace the SDK's in the metadata it serves (e.g. another `issuer`). */
  metadata?: Record<string, unknown>;
}

/** What each endpoint was asked, for assertions. */
export interface OAuthTestRequests {
  registrations: OAuthClientInformationFull[];
  /** The `resource` parameter of every authorization request (undefined when absent). */
  authorizeResources: (string | undefined)[];
  /** The `code_challenge_method` of every authorization request. */
  challengeMethods: string[];
  /** The `resource` of every code exchange. */
  tokenResources: (string | undefined)[];
  /** The `resource` of every refresh. */
  refreshResources: (string | undefined)[];
}

export interface OAuthTestAuthorizationServer {
  /** The issuer identifier, e.g. http://127.0.0.1:40123/ (what protected resource metadata names). */
  issuer: string;
  /** Verifies the access tokens it issued (for `requireBearerAuth`). */
  verifier: OAuthTokenVerifier;
  requests: OAuthTestRequests;
  /** Access tokens issued from now on live this long. */
  setAccessTokenTtl(seconds: number): void;
  /** Every refresh token issued so far stops working (refresh answers invalid_grant). */
  revokeRefreshTokens(): void;
  /**
   * From now on refresh requests are answered only after `ms`, or when `releaseRefreshes` is
   * called, whichever comes first (a slow authorization server).
   */
  holdRefreshes(ms: number): void;
  /** Answers every held refresh now, and holds no more. */
  releaseRefreshes(): void;
  /**
   * Refresh requests whose client is still waiting: not answered yet, connection still open
   * (a client that gave up no longer counts).
   */
  pendingRefreshes(): number;
  /**
   * false: refresh answers carry no new refresh token and the one used stays valid (RFC 6749
   * §6 allows either); true (default): each refresh rotates it.
   */
  setRefreshRotation(rotate: boolean): void;
  /** Every code, token, client secret and PKCE verifier it issued or received. */
  secrets(): string[];
  close(): Promise<void>;
}

interface IssuedCode {
  client: OAuthClientInformationFull;
  params: AuthorizationParams;
}

interface IssuedToken {
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource?: URL;
}

const token = () => randomBytes(24).toString('base64url');

class InMemoryClients implements OAuthRegisteredClientsStore {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  constructor(private readonly onRegister: (client: OAuthClientInformationFull) => void) {}

  getClient(clientId: string): OAuthClientInformationFull | undefined {
    return this.clients.get(clientId);
  }

  registerClient(client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>) {
    const full: OAuthClientInformationFull = {
      ...client,
      client_id: randomUUID(),
      client_id_issued_at: Math.floor(Date.now() / 1000),
    };
    this.clients.set(full.client_id, full);
    this.onRegister(full);
    return full;
  }
}

/**
 * A small OAuth 2.1 authorization server for tests and `make dev`, built from the official
 * SDK's `mcpAuthRouter` (metadata, dynamic registration, authorize, token with PKCE S256
 * checked, revocation) and an in-memory provider that approves every authorization at once
 * (no login page). Issues refresh tokens, access tokens of a configurable lifetime, and
 * records what it was asked so tests can prove PKCE and the resource parameter were sent.
 */
export async function startOAuthTestAuthorizationServer(
  opts: OAuthTestAuthorizationServerOptions = {},
): Promise<OAuthTestAuthorizationServer> {
  let ttlSeconds = opts.accessTokenTtlSeconds ?? 3600;
  let rotate = true;
  let pending = 0;
  let hold: { until: Promise<void>; release: () => void } | undefined;
  const release = () => {
    hold?.release();
    hold = undefined;
  };
  const requests: OAuthTestRequests = {
    registrations: [],
    authorizeResources: [],
    challengeMethods: [],
    tokenResources: [],
    refreshResources: [],
  };
  const secrets = new Set<string>();
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, Omit<IssuedToken, 'expiresAt'>>();
  const clients = new InMemoryClients((client) => {
    requests.registrations.push(client);
    if (client.client_secret) secrets.add(client.client_secret);
  });

  const issueTokens = (grant: Omit<IssuedToken, 'expiresAt'>): OAuthTokens => {
    const access = token();
    const refresh = token();
    secrets.add(access);
    secrets.add(refresh);
    accessTokens.set(access, { ...grant, expiresAt: Date.now() + ttlSeconds * 1000 });
    refreshTokens.set(refresh, grant);
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ttlSeconds,
      refresh_token: refresh,
      ...(grant.scopes.length > 0 ? { scope: grant.scopes.join(' ') } : {}),
    };
  };

  const provider: OAuthServerProvider = {
    clientsStore: clients,
    authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
      requests.authorizeResources.push(params.resource?.href);
      const code = token();
      secrets.add(code);
      codes.set(code, { client, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      if (opts.issParameter) target.searchParams.set('iss', issuerUrl.href);
      res.redirect(302, target.href);
      return Promise.resolve();
    },
    challengeForAuthorizationCode(_client, code) {
      const issued = codes.get(code);
      if (!issued) return Promise.reject(new InvalidGrantError('unknown code'));
      return Promise.resolve(issued.params.codeChallenge);
    },
    exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      requests.tokenResources.push(resource?.href);
      const issued = codes.get(code);
      codes.delete(code);
      if (!issued || issued.client.client_id !== client.client_id) {
        return Promise.reject(new InvalidGrantError('unknown code'));
      }
      if (redirectUri !== undefined && redirectUri !== issued.params.redirectUri) {
        return Promise.reject(new InvalidGrantError('redirect_uri differs'));
      }
      return Promise.resolve(
        issueTokens({
          clientId: client.client_id,
          scopes: issued.params.scopes ?? [],
          ...(resource === undefined ? {} : { resource }),
        }),
      );
    },
    async exchangeRefreshToken(client, refreshToken, _scopes, resource) {
      requests.refreshResources.push(resource?.href);
      await hold?.until;
      const grant = refreshTokens.get(refreshToken);
      if (!grant || grant.clientId !== client.client_id) {
        throw new InvalidGrantError('refresh token unknown or revoked');
      }
      if (!rotate) {
        // The refresh token used stays valid; the answer carries none.
        const answer = issueTokens(grant);
        if (answer.refresh_token) refreshTokens.delete(answer.refresh_token);
        delete answer.refresh_token;
        return answer;
      }
      // Rotation: the old refresh token stops working.
      refreshTokens.delete(refreshToken);
      return issueTokens(grant);
    },
    verifyAccessToken(accessToken: string): Promise<AuthInfo> {
      const issued = accessTokens.get(accessToken);
      if (!issued || issued.expiresAt < Date.now()) {
        return Promise.reject(new InvalidTokenError('unknown or expired access token'));
      }
      return Promise.resolve({
        token: accessToken,
        clientId: issued.clientId,
        scopes: issued.scopes,
        expiresAt: Math.floor(issued.expiresAt / 1000),
        ...(issued.resource === undefined ? {} : { resource: issued.resource }),
      });
    },
  };

  const app = express();
  // Records what the token endpoint receives before the SDK's handler reads it.
  app.use(
    '/token',
    express.urlencoded({ extended: false }),
    (req: Request, res: Response, next) => {
      const body = req.body as Record<string, unknown>;
      if (typeof body.code_verifier === 'string') secrets.add(body.code_verifier);
      if (body.grant_type === 'refresh_token') {
        pending += 1;
        // Answered, or the client hung up.
        res.once('close', () => {
          pending -= 1;
        });
      }
      next();
    },
  );
  const overrides = {
    ...(opts.issParameter ? { authorization_response_iss_parameter_supported: true } : {}),
    ...opts.metadata,
  };
  app.use('/.well-known/oauth-authorization-server', (_req: Request, res: Response, next) => {
    const json = res.json.bind(res);
    res.json = (body: Record<string, unknown>) => json({ ...body, ...overrides });
    next();
  });
  app.use('/authorize', (req: Request, _res, next) => {
    const method = req.query.code_challenge_method;
    requests.challengeMethods.push(typeof method === 'string' ? method : '');
    next();
  });

  const server = await new Promise<HttpServer>((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', (error?: Error) => {
      if (error) reject(error);
      else resolve(listening);
    });
  });
  const port = (server.address() as AddressInfo).port;
  const issuerUrl = new URL(`http://127.0.0.1:${port}/`);
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );

  return {
    issuer: issuerUrl.href,
    verifier: { verifyAccessToken: (t) => provider.verifyAccessToken(t) },
    requests,
    setAccessTokenTtl: (seconds) => {
      ttlSeconds = seconds;
    },
    revokeRefreshTokens: () => {
      refreshTokens.clear();
    },
    holdRefreshes: (ms) => {
      release();
      let done = () => undefined as void;
      const until = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        done = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      hold = { until, release: done };
    },
    releaseRefreshes: release,
    pendingRefreshes: () => pending,
    setRefreshRotation: (value) => {
      rotate = value;
    },
    secrets: () => [...secrets],
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
