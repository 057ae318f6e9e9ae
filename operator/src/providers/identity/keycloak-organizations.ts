import {
  KeycloakAdminClient,
  type KeycloakAdminOptions,
  KeycloakRequestFailed,
} from '@aiplane/lib';
import {
  type Organization,
  type OrganizationProvider,
  TENANT_UID_ATTRIBUTE,
} from './organizations.js';

interface Representation {
  id: string;
  name: string;
  alias: string;
  attributes?: Record<string, string[]>;
}

const toOrganization = (r: Representation): Organization => ({
  id: r.id,
  alias: r.alias,
  name: r.name,
  tenantUid: r.attributes?.[TENANT_UID_ATTRIBUTE]?.[0],
});

/** Keycloak 26 organizations (`/admin/realms/<realm>/organizations`). */
export class KeycloakOrganizations implements OrganizationProvider {
  private readonly admin: KeycloakAdminClient;

  constructor(options: KeycloakAdminOptions) {
    this.admin = new KeycloakAdminClient(options);
  }

  /**
   * Name and alias are both the slug. The substring search (`exact=false`) is used on purpose:
   * with Keycloak 26.7's organization cache, exact lookups kept answering an organization
   * deleted a moment earlier, while the substring search goes to the database. The alias is
   * then matched exactly here.
   */
  async findByAlias(alias: string): Promise<Organization | undefined> {
    const q = new URLSearchParams({
      search: alias,
      exact: 'false',
      first: '0',
      max: '100',
      briefRepresentation: 'false',
    });
    const reps = (await this.admin.get<Representation[]>(`/organizations?${q.toString()}`)) ?? [];
    const rep = reps.find((r) => r.alias === alias);
    return rep && toOrganization(rep);
  }

  async create(input: {
    alias: string;
    name: string;
    description?: string;
    tenantUid: string;
  }): Promise<Organization> {
    const res = await this.admin.request('POST', '/organizations', {
      name: input.name,
      alias: input.alias,
      enabled: true,
      description: input.description,
      attributes: { [TENANT_UID_ATTRIBUTE]: [input.tenantUid] },
    });
    await res.body?.cancel();
    const id = res.headers.get('location')?.split('/').pop();
    if (res.status !== 201 || !id) {
      throw new KeycloakRequestFailed(
        res.status,
        `creating organization ${input.alias} answered ${res.status}`,
      );
    }
    return { id, alias: input.alias, name: input.name, tenantUid: input.tenantUid };
  }

  async delete(id: string): Promise<void> {
    const res = await this.admin.request('DELETE', `/organizations/${encodeURIComponent(id)}`);
    await res.body?.cancel();
  }
}
