/**
 * A keyring configuration string was refused. The message names the rule and the entry's
 * position (1-based) or, once it is known to be well-formed, its key id; it never contains
 * key material.
 */
export class KeyringError extends Error {
  override readonly name = 'KeyringError';
  /** 1-based position of the offending entry, when the error is about one entry. */
  readonly position: number | undefined;

  constructor(message: string, position?: number) {
    super(message);
    this.position = position;
  }
}
