import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';

export interface JwtVerifierOptions {
  issuer: string;
  audience: string;
  jwksUri: string;
  clockToleranceSeconds: number;
  /** Least time between two JWKS fetches for unknown key ids; default 30 000 ms. */
  jwksCooldownMs?: number;
}

/** How long a verified token is taken without checking its signature again (at most). */
export const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;

/** Why a token was refused, in words safe to send back (no token content). */
export class TokenRejected extends Error {}

/** The signing keys could not be fetched: not the token's fault (answer 503, not 401). */
export class SigningKeysUnavailable extends Error {}

/**
 * Verifies access tokens against the issuer's JWKS. jose caches the key set, refetches it when
 * a token names an unknown `kid` (rotated keys are picked up, at most once per 30 s), and
 * refuses `alg: none` and symmetric algorithms because only the asymmetric ones are allowed.
 */
export class JwtVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  /** Tokens verified lately and until when they are taken without verifying again. */
  private readonly verified = new Map<string, { payload: JWTPayload; until: number }>();

  constructor(
    private readonly options: JwtVerifierOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.jwks = createRemoteJWKSet(new URL(options.jwksUri), {
      cacheMaxAge: 10 * 60_000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: 5_000,
    });
  }

  /**
   * The token's claims once it verifies. A token that verified is taken again without
   * checking its signature for at most VERIFIED_TTL_MS and never past its `exp` (then it is
   * verified afresh, and refused as expired): a client sends the same token with every call
   * for its lifetime (docs/adr/0043).
   */
  async verify(token: string): Promise<JWTPayload> {
    const now = this.now();
    const hit = this.verified.get(token);
    if (hit && now < hit.until) return hit.payload;
    if (hit) this.verified.delete(token);
    const payload = await this.verifyAfresh(token);
    const until = Math.min((payload.exp as number) * 1000, now + VERIFIED_TTL_MS);
    if (until > now) {
      this.verified.set(token, { payload, until });
      if (this.verified.size > VERIFIED_MAX) {
        const oldest = this.verified.keys().next().value;
        if (oldest !== undefined) this.verified.delete(oldest);
      }
    }
    return payload;
  }

  private async verifyAfresh(token: string): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        clockTolerance: this.options.clockToleranceSeconds,
        algorithms: [
          'RS256',
          'RS384',
          'RS512',
          'PS256',
          'PS384',
          'PS512',
          'ES256',
          'ES384',
          'ES512',
          'EdDSA',
        ],
        requiredClaims: ['sub', 'exp'],
      });
      return payload;
    } catch (err) {
      if (keysUnavailable(err))
        throw new SigningKeysUnavailable('the signing keys could not be fetched');
      throw new TokenRejected(describe(err));
    }
  }
}

function describe(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'the token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return 'the token is from another issuer';
    if (err.claim === 'aud') return 'the token is for another audience';
    if (err.claim === 'nbf') return 'the token is not valid yet';
    return `the token's ${err.claim} claim is not acceptable`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return 'the token uses an algorithm that is not accepted';
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return 'the token signature does not verify';
  if (err instanceof errors.JWKSNoMatchingKey) return 'the token is signed with an unknown key';
  return 'the token is malformed';
}

/** A timeout, a network failure or a bad answer from the JWKS endpoint. */
function keysUnavailable(err: unknown): boolean {
  if (err instanceof errors.JWKSTimeout || err instanceof TypeError) return true;
  // jose's own words for a non-200 or malformed key set; an unknown `kid` is the token's fault.
  if (err instanceof errors.JWKSInvalid) return true;
  return err instanceof errors.JOSEError && /^Expected 200 OK/.test(err.message);
}
