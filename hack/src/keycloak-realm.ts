// The local Keycloak's realm as data: what hack/src/keycloak-bootstrap.ts converges to.
// docs/adr/0003-keycloak-local.md explains the layout and the token claims it gives.

export const REALM = 'aiplane';

/** The permissions: each an organization group of that name, or a realm role (everywhere). */
export const PERMISSION_NAMES = ['can_access_api', 'can_manage_models', 'can_edit_config'];

/** Realm roles the API reads from `realm_access.roles` (docs/adr/0022: platform-wide grants). */
export const ROLES = ['platform-admin', ...PERMISSION_NAMES];

export const PORTAL_CLIENT = 'aiplane-portal';
export const API_CLIENT = 'aiplane-api';
export const OPERATOR_CLIENT = 'aiplane-operator';
/** Access tokens issued to the portal carry it in `aud`. */
export const AUDIENCE = API_CLIENT;

/**
 * The local realm hashes passwords with one PBKDF2 round instead of Keycloak's default Argon2:
 * the dev users log in by password grant hundreds of times per test run, and Argon2 took
 * 0.3–0.9 s of CPU per login on the 2-core machine (one round: under 0.1 s). This realm only
 * ever runs on the loopback with random passwords (docs/adr/0003-keycloak-local.md); a
 * production realm keeps its own policy. Keycloak re-hashes a stored password with the current
 * policy at its next login.
 */
export const LOCAL_PASSWORD_POLICY = 'hashAlgorithm(pbkdf2-sha256) and hashIterations(1)';

export const ORGANIZATION = { name: 'acme', alias: 'acme' };

export const DEV_USERS = ['admin', 'member', 'outsider', 'nobody'] as const;
export type DevUserName = (typeof DEV_USERS)[number];

/**
 * Per dev user: realm roles (of ROLES, held everywhere), membership of ORGANIZATION, and the
 * permissions held in an organization they are a member of, through its groups (in `acme`, and
 * in the tests' tenants when a suite adds them).
 */
export const USERS: Record<
  DevUserName,
  { roles: string[]; member: boolean; organizationPermissions: string[] }
> = {
  admin: { roles: ROLES, member: true, organizationPermissions: [] },
  member: { roles: [], member: true, organizationPermissions: ['can_access_api'] },
  outsider: { roles: [], member: true, organizationPermissions: [] },
  // A platform-wide API user in no organization (can_access_api as a realm role).
  nobody: { roles: ['can_access_api'], member: false, organizationPermissions: [] },
};

export function userRepresentation(username: DevUserName) {
  return {
    username,
    enabled: true,
    email: `${username}@aiplane.test`,
    emailVerified: true,
    firstName: username.charAt(0).toUpperCase() + username.slice(1),
    lastName: 'Dev',
    // Nothing left to do at login, so the password grant works.
    requiredActions: [] as string[],
  };
}

/** realm-management client roles of each service account: exactly these. */
export const SERVICE_ACCOUNT_ROLES: Record<string, string[]> = {
  // Re-checks an API key's owner: the user, its realm role mappings, its organizations.
  [API_CLIENT]: ['view-users', 'view-organizations'],
  // Creates, lists, reads and deletes organizations and adds and removes their members.
  [OPERATOR_CLIENT]: ['manage-organizations', 'view-organizations', 'view-users', 'manage-users'],
};

/** The origins `make dev` serves the portal at (the API on DEV_PORTS.api, docs/adr/0037). */
export const DEV_PORTAL_ORIGINS = ['http://127.0.0.1:8080', 'http://localhost:8080'];

export function portalClient() {
  return {
    clientId: PORTAL_CLIENT,
    name: 'aiplane portal',
    protocol: 'openid-connect',
    enabled: true,
    publicClient: true,
    standardFlowEnabled: true,
    implicitFlowEnabled: false,
    // The resource-owner password grant is for make dev and the tests only.
    directAccessGrantsEnabled: true,
    serviceAccountsEnabled: false,
    // Keycloak matches loopback redirect URIs on any port (RFC 8252 §7.3).
    redirectUris: ['http://127.0.0.1/*', 'http://localhost/*'],
    // '+' gives the redirect URIs' origins, which for the loopback patterns carry no port: the
    // portal's token requests (a cross-origin fetch from the API's origin) need the origin of
    // `make dev`'s API (hack/src/dev-services.ts, DEV_PORTS.api) named; a test API on another
    // port adds its own (test/integration/portal-browser.test.ts).
    webOrigins: ['+', ...DEV_PORTAL_ORIGINS],
    attributes: { 'pkce.code.challenge.method': 'S256', 'post.logout.redirect.uris': '+' },
  };
}

export function confidentialClient(clientId: string, name: string) {
  return {
    clientId,
    name,
    protocol: 'openid-connect',
    enabled: true,
    publicClient: false,
    clientAuthenticatorType: 'client-secret',
    serviceAccountsEnabled: true,
    standardFlowEnabled: false,
    implicitFlowEnabled: false,
    directAccessGrantsEnabled: false,
  };
}

export interface ProtocolMapper {
  id?: string;
  name: string;
  protocol: string;
  protocolMapper: string;
  config: Record<string, string>;
}

/** Default client scopes of the portal, each with its mappers. */
export const PORTAL_SCOPES: { scope: string; mappers: ProtocolMapper[] }[] = [
  {
    scope: 'aiplane-api-audience',
    mappers: [
      {
        name: 'aiplane-api audience',
        protocol: 'openid-connect',
        protocolMapper: 'oidc-audience-mapper',
        config: {
          'included.client.audience': API_CLIENT,
          'access.token.claim': 'true',
          'introspection.token.claim': 'true',
          'id.token.claim': 'false',
        },
      },
    ],
  },
  {
    // Keycloak 26's built-in scope. With the ids the claim is {"<alias>": {"id": "<uuid>"}};
    // the group membership mapper (Keycloak 26.6) adds each organization's group paths:
    // {"<alias>": {"id": "<uuid>", "groups": ["/can_access_api"]}} (docs/adr/0022).
    scope: 'organization',
    mappers: [
      {
        name: 'organization',
        protocol: 'openid-connect',
        protocolMapper: 'oidc-organization-membership-mapper',
        config: {
          'claim.name': 'organization',
          'jsonType.label': 'JSON',
          multivalued: 'true',
          addOrganizationId: 'true',
          'access.token.claim': 'true',
          'id.token.claim': 'true',
          'introspection.token.claim': 'true',
          'userinfo.token.claim': 'true',
        },
      },
      {
        name: 'organization groups',
        protocol: 'openid-connect',
        protocolMapper: 'oidc-organization-group-membership-mapper',
        config: {
          // Group paths only: role mappings of organization groups would land in realm_access,
          // where they would count in every organization.
          addGroupRoleMappings: 'false',
          'access.token.claim': 'true',
          'id.token.claim': 'false',
          'introspection.token.claim': 'true',
          'userinfo.token.claim': 'false',
        },
      },
    ],
  },
];
