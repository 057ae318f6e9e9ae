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
}

/** The attribute that marks an organization as created for a tenant (its uid). */
export const TENANT_UID_ATTRIBUTE = 'aiplane.io/tenant-uid';
