import assert from 'node:assert/strict';
import type { FetchLike } from '../upstream/index.js';
import { discoverAuthorization, type DiscoveryOptions } from './discovery.js';
import { OAuthSetupError } from './oauth-failure.js';

const MCP = 'https://mcp.example/mcp';
const PRM_URL = 'https://mcp.example/.well-known/oauth-protected-resource/mcp';
const AS = 'https://as.example';
const AS_METADATA = {
  issuer: AS,
  authorization_endpoint: `${AS}/authorize`,
  token_endpoint: `${AS}/token`,
  registration_endpoint: `${AS}/register`,
  response_types_supported: ['code'],
  code_challenge_methods_supported: ['S256'],
};
const PRM = { resource: MCP, authorization_servers: [AS] };

/** A fake web: URL → JSON document; everything else is 404. Records every URL asked. */
function web(documents: Record<string, unknown>) {
  const asked: string[] = [];
  const fetch: FetchLike = (url) => {
    asked.push(String(url));
    const doc = documents[String(url)];
    return Promise.resolve(
      doc === undefined
        ? new Response('not found', { status: 404 })
        : new Response(JSON.stringify(doc), { headers: { 'content-type': 'application/json' } }),
    );
  };
  return { asked, fetch };
}

function options(fetch: FetchLike, extra: Partial<DiscoveryOptions> = {}): DiscoveryOptions {
  return {
    url: MCP,
    serverFetch: fetch,
    remoteFetch: fetch,
    checkResource: true,
    allowLoopback: false,
    timeoutMs: 1000,
    ...extra,
  };
}

const AS_WELL_KNOWN = `${AS}/.well-known/oauth-authorization-server`;

describe('discoverAuthorization', () => {
  it('follows resource_metadata of the challenge to the authorization server’s metadata', async () => {
    const w = web({ 'https://mcp.example/prm': PRM, [AS_WELL_KNOWN]: AS_METADATA });
    const found = await discoverAuthorization(options(w.fetch), {
      resourceMetadataUrl: new URL('https://mcp.example/prm'),
      scope: 'files:read',
    });
    assert.deepEqual(found, {
      resource: MCP,
      scope: 'files:read',
      issuer: AS,
      metadata: AS_METADATA,
      issParameterSupported: false,
    });
    assert.deepEqual(w.asked, ['https://mcp.example/prm', AS_WELL_KNOWN]);
  });

  it('says the callback must carry iss when the server advertises authorization_response_iss_parameter_supported', async () => {
    const w = web({
      [PRM_URL]: PRM,
      [AS_WELL_KNOWN]: { ...AS_METADATA, authorization_response_iss_parameter_supported: true },
    });
    const found = await discoverAuthorization(options(w.fetch), {});
    assert.equal(found?.issParameterSupported, true);
  });

  it('finds the metadata at the well-known URI and asks for every scope it lists', async () => {
    const w = web({
      [PRM_URL]: { ...PRM, scopes_supported: ['a', 'b'] },
      [`${AS}/.well-known/openid-configuration`]: {
        ...AS_METADATA,
        jwks_uri: `${AS}/jwks`,
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      },
    });
    const found = await discoverAuthorization(options(w.fetch), {});
    assert.equal(found?.scope, 'a b');
    assert.equal(found?.issuer, AS);
  });

  it('answers undefined when the server publishes no protected resource metadata', async () => {
    const w = web({});
    assert.equal(await discoverAuthorization(options(w.fetch), {}), undefined);
  });

  it('fails when the metadata the challenge names is missing', async () => {
    const w = web({});
    await assert.rejects(
      discoverAuthorization(options(w.fetch), {
        resourceMetadataUrl: new URL('https://mcp.example/prm'),
      }),
      (e: unknown) => e instanceof Error && !(e instanceof OAuthSetupError),
    );
  });

  it('lets a managed server’s metadata name the resource it is known as', async () => {
    const w = web({
      [PRM_URL]: { ...PRM, resource: 'https://files.example/mcp' },
      [AS_WELL_KNOWN]: AS_METADATA,
    });
    const found = await discoverAuthorization(options(w.fetch, { checkResource: false }), {});
    assert.equal(found?.resource, 'https://files.example/mcp');
  });

  const refused: [string, Record<string, unknown>, Partial<DiscoveryOptions>, RegExp][] = [
    [
      'metadata for another resource',
      {
        [PRM_URL]: { ...PRM, resource: 'https://other.example/mcp' },
        [AS_WELL_KNOWN]: AS_METADATA,
      },
      {},
      /another resource/,
    ],
    [
      'no authorization server',
      { [PRM_URL]: { resource: MCP } },
      {},
      /names no authorization server/,
    ],
    [
      'an authorization server on plain http',
      { [PRM_URL]: { ...PRM, authorization_servers: ['http://as.example'] } },
      {},
      /issuer must use https/,
    ],
    [
      'an authorization server without metadata',
      { [PRM_URL]: PRM },
      {},
      /no authorization server metadata/,
    ],
    [
      'metadata naming another issuer',
      { [PRM_URL]: PRM, [AS_WELL_KNOWN]: { ...AS_METADATA, issuer: 'https://evil.example' } },
      {},
      /another issuer/,
    ],
    [
      'metadata whose issuer differs from the one asked by a trailing slash on its path',
      {
        [PRM_URL]: { ...PRM, authorization_servers: [`${AS}/tenant`] },
        [`${AS}/.well-known/oauth-authorization-server/tenant`]: {
          ...AS_METADATA,
          issuer: `${AS}/tenant/`,
        },
      },
      {},
      /another issuer/,
    ],
    [
      'no PKCE S256',
      {
        [PRM_URL]: PRM,
        [AS_WELL_KNOWN]: { ...AS_METADATA, code_challenge_methods_supported: ['plain'] },
      },
      {},
      /PKCE S256/,
    ],
    [
      'no code_challenge_methods_supported at all',
      {
        [PRM_URL]: PRM,
        [AS_WELL_KNOWN]: { ...AS_METADATA, code_challenge_methods_supported: undefined },
      },
      {},
      /PKCE S256/,
    ],
    [
      'a token endpoint on plain http',
      {
        [PRM_URL]: PRM,
        [AS_WELL_KNOWN]: { ...AS_METADATA, token_endpoint: 'http://as.example/token' },
      },
      {},
      /token_endpoint must use https/,
    ],
  ];
  for (const [name, documents, extra, message] of refused) {
    it(`refuses ${name}`, async () => {
      const w = web(documents);
      await assert.rejects(
        discoverAuthorization(options(w.fetch, extra), {}),
        (e: unknown) => e instanceof OAuthSetupError && message.test(e.message),
      );
    });
  }
});
