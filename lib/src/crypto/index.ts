export { generateKeyringEntry } from './generate-key.js';
export { KeyringError } from './keyring-error.js';
export { deriveActiveKey, KID_PATTERN, parseKeyring } from './keyring.js';
export type { Keyring } from './keyring.js';
export { SecretOpenError } from './secret-open-error.js';
export type { SecretOpenFailure } from './secret-open-error.js';
export { needsReseal, openSecret, sealSecret } from './secret-box.js';
