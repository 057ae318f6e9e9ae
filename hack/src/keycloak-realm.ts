// The local Keycloak's realm as data: what hack/src/keycloak-bootstrap.ts converges to.
// docs/adr/0003-keycloak-local.md explains the layout and the token claims it gives.

export const REALM = 'aiplane';

/** Realm roles the API reads from `realm_access.roles`. */
export const ROLES = ['platform-admin', 'can_access_api', 'can_manage_models', 'can_edit_config'];

export const PORTAL_CLIENT = 'aiplane-portal';
export const API_CLIENT = 'aiplane-api';
export const OPERATOR_CLIENT = 'aiplane-operator';
/** Access tokens issued to the portal carry it in `aud`. */
export const AUDIENCE = API_CLIENT;

export const ORGANIZATION = { name: 'acme', alias: 'acme' };

export const DEV_USERS = ['admin', 'member', 'outsider', 'nobody'] as const;
export type DevUserName = (typeof DEV_USERS)[number];

/** Realm roles (of ROLES) and membership of ORGANIZATION, per dev user. */
export const USERS: Record<DevUserName, { roles: string[]; member: boolean }> = {
  admin: { roles: ROLES, member: true },
  member: { roles: ['can_access_api'], member: true },
  outsider: { roles: [], member: true },
  nobody: { roles: ['can_access_api'], member: false },
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
    webOrigins: ['+'],
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

/** Default client scopes of the portal, each with one mapper. */
export const PORTAL_SCOPES: { scope: string; mapper: ProtocolMapper }[] = [
  {
    scope: 'aiplane-api-audience',
    mapper: {
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
  },
  {
    // Keycloak 26's built-in scope. With the ids the claim is {"<alias>": {"id": "<uuid>"}}.
    scope: 'organization',
    mapper: {
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
  },
];
