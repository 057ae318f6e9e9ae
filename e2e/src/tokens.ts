import { passwordGrant, type DevUserName, type PasswordGrantTarget } from '@aiplane/hack';
import { secrets } from './redact.js';

/** A token is used only while more than `marginSeconds` of its lifetime is left. */
export function tokenIsFresh(
  token: { obtainedAtMs: number; expiresInSeconds: number },
  nowMs: number,
  marginSeconds = 30,
): boolean {
  return nowMs < token.obtainedAtMs + (token.expiresInSeconds - marginSeconds) * 1000;
}

interface Cached {
  value: string;
  obtainedAtMs: number;
  expiresInSeconds: number;
}

/**
 * Access tokens of the dev users (password grant through the portal client, over the
 * Keycloak port-forward), cached per user and scope until shortly before they expire. Every
 * token is remembered as a secret, so no log line or failure message shows it.
 */
export class Tokens {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly target: PasswordGrantTarget,
    private readonly users: Record<DevUserName, { username: string; password: string }>,
    private readonly now: () => number = Date.now,
  ) {}

  async get(user: DevUserName, scope = 'openid'): Promise<string> {
    const key = `${user} ${scope}`;
    const hit = this.cache.get(key);
    if (hit && tokenIsFresh(hit, this.now())) return hit.value;
    const obtainedAtMs = this.now();
    const reply = await passwordGrant(this.target, this.users[user], { scope });
    secrets.remember(reply.access_token);
    secrets.remember(reply.refresh_token);
    secrets.remember(reply.id_token);
    this.cache.set(key, {
      value: reply.access_token,
      obtainedAtMs,
      expiresInSeconds: reply.expires_in,
    });
    return reply.access_token;
  }

  /** Drops a user's cached tokens (after a membership change, which only new tokens show). */
  forget(user: DevUserName): void {
    for (const key of [...this.cache.keys()])
      if (key.startsWith(`${user} `)) this.cache.delete(key);
  }
}
