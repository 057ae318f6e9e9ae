import { UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';
import type { PortalConfig } from './config';

/** Where the authorization server sends the browser back (registered for the portal client). */
export const CALLBACK_PATH = `${import.meta.env.BASE_URL}callback`;

let manager: UserManager | undefined;

/** OpenID Connect authorization code + PKCE (S256) with the realm's public client. */
export function createAuth(config: PortalConfig): UserManager {
  const origin = window.location.origin;
  manager = new UserManager({
    authority: config.issuer,
    client_id: config.client_id,
    redirect_uri: `${origin}${CALLBACK_PATH}`,
    post_logout_redirect_uri: `${origin}${import.meta.env.BASE_URL}`,
    response_type: 'code',
    scope: config.scope,
    // Renews with the refresh token before the access token expires (no hidden iframe).
    automaticSilentRenew: true,
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
  });
  return manager;
}

function auth(): UserManager {
  if (!manager) throw new Error('sign-in is not configured yet');
  return manager;
}

/** The signed-in user with a valid access token, or null. */
export async function currentUser(): Promise<User | null> {
  const user = await auth().getUser();
  return user && !user.expired ? user : null;
}

export async function accessToken(): Promise<string | undefined> {
  return (await currentUser())?.access_token;
}

/** Sends the browser to the sign-in page; it comes back to `returnTo` after the callback. */
export function signIn(
  returnTo = window.location.pathname + window.location.search,
): Promise<void> {
  return auth().signinRedirect({ state: { returnTo } });
}

/** Ends the session at the identity provider too, then comes back to the portal's start. */
export async function signOut(): Promise<void> {
  const m = auth();
  const user = await m.getUser();
  await m.removeUser();
  await m.signoutRedirect(user?.id_token ? { id_token_hint: user.id_token } : {});
}

/** Completes a sign-in on the callback page: answers where to go next. */
export async function completeSignIn(): Promise<string> {
  const user = await auth().signinRedirectCallback();
  const state = user.state as { returnTo?: string } | undefined;
  const returnTo = state?.returnTo;
  // Only a path of the portal itself (never another origin, never the callback again).
  return returnTo?.startsWith(import.meta.env.BASE_URL) && !returnTo.startsWith(CALLBACK_PATH)
    ? returnTo
    : import.meta.env.BASE_URL;
}
