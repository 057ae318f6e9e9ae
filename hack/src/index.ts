export { LocalControlPlane, type ControlPlaneOptions } from './control-plane.js';
export { LocalEnvironment, type EnvironmentInfo } from './environment.js';
export { LocalPostgres, type PostgresInfo, postgresBinDir } from './postgres.js';
export { binaryPaths, cacheDir, repoRoot, versions, type BinaryPaths } from './paths.js';
export { freePort, waitFor } from './ports.js';
export { startProcess, type ManagedProcess, type StartOptions } from './process.js';
