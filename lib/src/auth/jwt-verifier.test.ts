import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT, type CryptoKey } from 'jose';
import {
  JwtVerifier,
  SigningKeysUnavailable,
  TokenRejected,
  VERIFIED_TTL_MS,
} from './jwt-verifier.js';

const ISSUER = 'https://idp.test/realms/aiplane';
const AUDIENCE = 'aiplane-api';

describe('JWT verification against a JWKS', function () {
  let server: Server;
  const keys: JWK[] = [];
  let jwksUri = '';
  let current: { key: CryptoKey; kid: string };

  async function newKey(kid: string) {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    keys.push({ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' });
    current = { key: privateKey, kid };
  }

  function sign(
    claims: Record<string, unknown> = {},
    opts: { exp?: string | number; iss?: string; aud?: string } = {},
  ) {
    return new SignJWT({ sub: 'user-1', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: current.kid })
      .setIssuer(opts.iss ?? ISSUER)
      .setAudience(opts.aud ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? '5m')
      .sign(current.key);
  }

  const verifier = () =>
    new JwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri, clockToleranceSeconds: 30 });

  async function rejection(token: string, v = verifier()): Promise<string> {
    try {
      await v.verify(token);
    } catch (err) {
      if (err instanceof TokenRejected) return err.message;
      throw err;
    }
    throw new Error('the token was accepted');
  }

  before(async function () {
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs`;
    await newKey('k1');
  });
  after(function () {
    server.close();
  });

  it('accepts a valid token and returns its claims', async function () {
    const payload = await verifier().verify(await sign({ preferred_username: 'ann' }));
    assert.equal(payload.sub, 'user-1');
    assert.equal(payload.preferred_username, 'ann');
  });

  it('refuses an expired token (beyond the clock tolerance)', async function () {
    const exp = Math.floor(Date.now() / 1000) - 60;
    assert.equal(await rejection(await sign({}, { exp })), 'the token has expired');
  });

  it('accepts a token expired within the 30 s clock tolerance', async function () {
    const exp = Math.floor(Date.now() / 1000) - 10;
    await verifier().verify(await sign({}, { exp }));
  });

  it('refuses a token from another issuer', async function () {
    assert.equal(
      await rejection(await sign({}, { iss: 'https://evil.test' })),
      'the token is from another issuer',
    );
  });

  it('refuses a token for another audience', async function () {
    assert.equal(
      await rejection(await sign({}, { aud: 'account' })),
      'the token is for another audience',
    );
  });

  it('refuses a tampered token', async function () {
    const [h, p, s] = (await sign()).split('.');
    const claims = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url');
    assert.equal(await rejection(`${h}.${forged}.${s}`), 'the token signature does not verify');
  });

  it('refuses alg none', async function () {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const exp = Math.floor(Date.now() / 1000) + 300;
    const body = Buffer.from(
      JSON.stringify({ sub: 'admin', iss: ISSUER, aud: AUDIENCE, exp }),
    ).toString('base64url');
    assert.equal(
      await rejection(`${header}.${body}.`),
      'the token uses an algorithm that is not accepted',
    );
  });

  it('refuses garbage as malformed', async function () {
    assert.equal(await rejection('not-a-jwt'), 'the token is malformed');
  });

  it('picks up a rotated signing key without a restart', async function () {
    const v = new JwtVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUri,
      clockToleranceSeconds: 30,
      jwksCooldownMs: 0,
    });
    await v.verify(await sign());
    await newKey('k2');
    const payload = await v.verify(await sign());
    assert.equal(payload.sub, 'user-1');
  });

  it('takes a verified token again from memory, at most VERIFIED_TTL_MS and never past its exp', async function () {
    let now = Date.now();
    const v = new JwtVerifier(
      { issuer: ISSUER, audience: AUDIENCE, jwksUri, clockToleranceSeconds: 30 },
      () => now,
    );
    let afresh = 0;
    const inner = v as unknown as { verifyAfresh: (t: string) => Promise<unknown> };
    const verifyAfresh = inner.verifyAfresh.bind(v);
    inner.verifyAfresh = (t) => {
      afresh++;
      return verifyAfresh(t);
    };
    const token = await sign({}, { exp: Math.floor(now / 1000) + 3600 });
    await v.verify(token);
    await v.verify(token);
    assert.equal(afresh, 1);
    now += VERIFIED_TTL_MS;
    await v.verify(token);
    assert.equal(afresh, 2);
    const shortLived = await sign({}, { exp: Math.floor(now / 1000) + 5 });
    await v.verify(shortLived);
    now += 6_000;
    await v.verify(shortLived);
    assert.equal(afresh, 4);
    // A refusal is never kept: the forged token is refused each time.
    assert.equal(await rejection('not-a-jwt', v), 'the token is malformed');
    assert.equal(await rejection('not-a-jwt', v), 'the token is malformed');
    assert.equal(afresh, 6);
  });

  it('says the signing keys are unavailable (not that the token is bad) when the JWKS endpoint fails', async function () {
    const failing = createServer((_req, res) => {
      res.statusCode = 503;
      res.end('down');
    });
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
    const uri = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/certs`;
    try {
      for (const jwks of [uri, 'http://127.0.0.1:1/certs']) {
        const v = new JwtVerifier({
          issuer: ISSUER,
          audience: AUDIENCE,
          jwksUri: jwks,
          clockToleranceSeconds: 30,
        });
        await assert.rejects(v.verify(await sign()), SigningKeysUnavailable, jwks);
      }
    } finally {
      failing.close();
    }
  });
});
