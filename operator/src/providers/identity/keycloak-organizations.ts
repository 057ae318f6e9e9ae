import {
  KeycloakAdminClient,
  type KeycloakAdminOptions,
  KeycloakRequestFailed,
} from '@aiplane/lib';
import { PERMISSIONS } from '@aiplane/lib/auth';
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

/** Organizations asked for per page of a search. */
const PAGE_SIZE = 100;

/** Keycloak 26 organizations (`/admin/realms/<realm>/organizations`). */
export class KeycloakOrganizations implements OrganizationProvider {
  private readonly admin: KeycloakAdminClient;

  constructor(options: KeycloakAdminOptions) {
    this.admin = new KeycloakAdminClient(options);
  }

  /**
   * The organization with this alias, or undefined. Both lookups match exactly (a substring
   * search would let `acme` answer `acme-corp`) and read every page (`first`/`max`), however many
   * organizations the realm has:
   * 1. the name search with `exact=true`: name and alias are both the slug for every organization
   *    aiplane creates, so this answers at once;
   * 2. when no organization has that name (someone renamed it in Keycloak; the alias is
   *    immutable), the attribute query `q=alias:<alias>`, which Keycloak 26 matches exactly
   *    against the alias.
   * Both are database queries, so an organization deleted a moment ago is not answered.
   */
  async findByAlias(alias: string): Promise<Organization | undefined> {
    return (
      (await this.findIn({ search: alias, exact: 'true' }, alias)) ??
      (await this.findIn({ q: `alias:${alias}` }, alias))
    );
  }

  /** Reads a search page by page until an organization has the alias or the pages end. */
  private async findIn(
    params: Record<string, string>,
    alias: string,
  ): Promise<Organization | undefined> {
    for (let first = 0; ; first += PAGE_SIZE) {
      const q = new URLSearchParams({
        ...params,
        first: String(first),
        max: String(PAGE_SIZE),
        briefRepresentation: 'false',
      });
      const page = (await this.admin.get<Representation[]>(`/organizations?${q.toString()}`)) ?? [];
      const rep = page.find((r) => r.alias === alias);
      if (rep) return toOrganization(rep);
      if (page.length < PAGE_SIZE) return undefined;
    }
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

  async ensurePermissionGroups(id: string): Promise<void> {
    const path = `/organizations/${encodeURIComponent(id)}/groups`;
    const groups = (await this.admin.get<{ name: string }[]>(`${path}?max=1000`)) ?? [];
    // The missing groups side by side: each is its own request, and none depends on another.
    const missing = PERMISSIONS.filter((p) => !groups.some((g) => g.name === p));
    const created = await Promise.allSettled(
      missing.map(async (name) => {
        const res = await this.admin.request('POST', path, { name });
        await res.body?.cancel();
      }),
    );
    for (const r of created) {
      // 409: created meanwhile (another reconcile, or an administrator): the wanted state.
      if (r.status === 'fulfilled') continue;
      const err: unknown = r.reason;
      if (!(err instanceof KeycloakRequestFailed && err.status === 409)) throw err;
    }
  }

  async delete(id: string): Promise<void> {
    const res = await this.admin.request('DELETE', `/organizations/${encodeURIComponent(id)}`);
    await res.body?.cancel();
  }
}
