import { GROUP, MCP_SERVER_PLURAL, TENANT_LIFECYCLE_PLURAL, VERSION } from '@aiplane/crds';

/** Cluster-wide collection paths of the two kinds the API and the gateway read and write. */
export const TENANT_LIFECYCLES_PATH = `/apis/${GROUP}/${VERSION}/${TENANT_LIFECYCLE_PLURAL}`;
export const MCP_SERVERS_PATH = `/apis/${GROUP}/${VERSION}/${MCP_SERVER_PLURAL}`;
