export { connect, migrate } from './database.js';
export { CredentialStore } from './credential-store.js';
export { type LiveScope, notLive } from './orphan-filter.js';
