/** An identity-provider organization as the operator sees it. */
export interface Organization {
  id: string;
  alias: string;
  name: string;
  /** The TenantLifecycle uid recorded when aiplane created it; undefined for foreign ones. */
  tenantUid?: string;
}

/** The identity provider's organizations (Keycloak first; Zitadel later). */
export interface OrganizationProvider {
  findByAlias(alias: string): Promise<Organization | undefined>;
  create(input: {
    alias: string;
    name: string;
    description?: string;
    tenantUid: string;
  }): Promise<Organization>;
  delete(id: string): Promise<void>;
  /**
   * The organization has one group per permission (`can_access_api`, …), created when missing:
   * membership grants the permission in that organization (docs/adr/0022).
   */
  ensurePermissionGroups(id: string): Promise<void>;
}

/** The attribute that marks an organization as created for a tenant (its uid). */
export const TENANT_UID_ATTRIBUTE = 'aiplane.io/tenant-uid';
