/** Why a sealed secret could not be opened. */
export type SecretOpenFailure =
  /** Not a `v1.<kid>.<iv>.<ciphertext>.<tag>` envelope, or a part has the wrong size. */
  | 'malformed'
  /** Sealed with a key id the keyring does not hold (retired too early, or foreign data). */
  | 'unknown_kid'
  /** The tag did not verify: tampered data, the wrong key, or the wrong associated data. */
  | 'authentication_failed';

/**
 * A sealed secret could not be opened. The message never contains the plaintext, the key or
 * the envelope; it names at most the key id, which is not secret.
 */
export class SecretOpenError extends Error {
  override readonly name = 'SecretOpenError';
  readonly reason: SecretOpenFailure;

  constructor(reason: SecretOpenFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}
