export { API_KEY_PREFIX, generateApiKey } from './api-key-format.js';
export { type ApiKeyRecord, ApiKeyStore } from './api-key-store.js';
export { Authenticator } from './authenticator.js';
export {
  actingOrganization,
  authenticate,
  bearerOf,
  callerOrganization,
  ORGANIZATION_HEADER,
  organizationNamed,
  organizationOf,
  principalOf,
  requirePermission,
  requirePlatformAdmin,
} from './middleware.js';
export {
  hasPermission,
  isOrganizationAdmin,
  isPlatformAdmin,
  type OrganizationRef,
  type Permission,
  PERMISSIONS,
  permissionsIn,
  type Principal,
} from './principal.js';
