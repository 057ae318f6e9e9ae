export { KeycloakOrganizations } from './keycloak-organizations.js';
export {
  type Organization,
  type OrganizationProvider,
  TENANT_UID_ATTRIBUTE,
} from './organizations.js';
