/**
 * Per-user and per-organization caps of the gateway (docs/adr/0010, "Caps"): concurrent
 * requests (an open event stream is a request until it ends) and live sessions. Pure: no I/O,
 * the clock is injected; the state is this replica's own (the caps are per replica).
 */
export interface GatewayLimits {
  /** In-flight requests (open streams included) of one user. */
  readonly requestsPerUser: number;
  /** In-flight requests of one organization's servers, all its users together. */
  readonly requestsPerOrganization: number;
  /** Live sessions of one user (opened by an `initialize`, ended by DELETE or a 404). */
  readonly sessionsPerUser: number;
  /** Live sessions on one organization's servers. */
  readonly sessionsPerOrganization: number;
  /** A session not used for this long stops counting (clients may never DELETE theirs). */
  readonly sessionIdleSeconds: number;
}

export type LimitName =
  | 'requests_per_user'
  | 'requests_per_organization'
  | 'sessions_per_user'
  | 'sessions_per_organization';

export interface LimitRefusal {
  limit: LimitName;
  /** What the `Retry-After` header says: when a slot may be free again (at least 1 s). */
  retryAfterSeconds: number;
  /** For the caller: which cap, and its value; never another user's or organization's data. */
  message: string;
}

export interface Admission {
  /** What one request asks of the caps. */
  userId: string;
  /** The organization of the server called, when the caller may use it; else only the user counts. */
  organizationId: string | undefined;
  /** The session id the client presented (`Mcp-Session-Id`), if any. */
  session: string | undefined;
  /** Whether the request opens a session: a POST carrying `initialize`, without a session id. */
  opensSession: boolean;
}

export interface Outcome {
  status: number;
  /** The session id the gateway gave the client on this answer, if any. */
  session: string | undefined;
  method: string;
}

/** A request that was admitted; `done` exactly once when its response ends or the client leaves. */
export interface Ticket {
  done(outcome: Outcome): void;
}

interface Session {
  userId: string;
  organizationId: string | undefined;
  lastUsed: number;
}

/** The retry hint for a concurrency cap: a request or stream may end any moment. */
const RETRY_REQUESTS_SECONDS = 1;

function increment(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}

/** Sets of keys per owner, each kept in least-recently-used order (re-inserted on use). */
class Ordered {
  private readonly byOwner = new Map<string, Map<string, number>>();

  touch(owner: string, key: string, at: number): void {
    let keys = this.byOwner.get(owner);
    if (!keys) this.byOwner.set(owner, (keys = new Map<string, number>()));
    keys.delete(key);
    keys.set(key, at);
  }

  remove(owner: string, key: string): void {
    const keys = this.byOwner.get(owner);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.byOwner.delete(owner);
  }

  size(owner: string): number {
    return this.byOwner.get(owner)?.size ?? 0;
  }

  /** When the least recently used key of `owner` was last used. */
  oldest(owner: string): number | undefined {
    const first = this.byOwner.get(owner)?.values().next();
    return first === undefined || first.done === true ? undefined : first.value;
  }

  owners(): number {
    return this.byOwner.size;
  }
}

/**
 * Counts in-flight requests and live sessions per user and per organization, and refuses a
 * request that would go over a cap. A refused request takes nothing; an admitted one holds its
 * slots until {@link Ticket.done}.
 */
export class GatewayLimiter {
  private readonly requestsByUser = new Map<string, number>();
  private readonly requestsByOrganization = new Map<string, number>();
  /** Sessions being opened (an `initialize` in flight): they count before they exist. */
  private readonly openingByUser = new Map<string, number>();
  private readonly openingByOrganization = new Map<string, number>();
  /** Every live session, least recently used first. */
  private readonly sessions = new Map<string, Session>();
  private readonly sessionsByUser = new Ordered();
  private readonly sessionsByOrganization = new Ordered();
  private readonly idleMs: number;

  constructor(
    private readonly limits: GatewayLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.idleMs = limits.sessionIdleSeconds * 1000;
  }

  /** Admits the request (a ticket), or says which cap it would go over. */
  admit(a: Admission): { ticket: Ticket } | { refusal: LimitRefusal } {
    const now = this.now();
    this.expire(now);
    const org = a.organizationId;
    const refusal =
      this.requestRefusal(a.userId, org) ?? (a.opensSession ? this.sessionRefusal(a, now) : null);
    if (refusal) return { refusal };

    increment(this.requestsByUser, a.userId, 1);
    if (org !== undefined) increment(this.requestsByOrganization, org, 1);
    if (a.opensSession) {
      increment(this.openingByUser, a.userId, 1);
      if (org !== undefined) increment(this.openingByOrganization, org, 1);
    }
    if (a.session !== undefined) this.use(a.session, now, a.userId);

    let done = false;
    return {
      ticket: {
        done: (outcome) => {
          if (done) return;
          done = true;
          increment(this.requestsByUser, a.userId, -1);
          if (org !== undefined) increment(this.requestsByOrganization, org, -1);
          if (a.opensSession) {
            increment(this.openingByUser, a.userId, -1);
            if (org !== undefined) increment(this.openingByOrganization, org, -1);
          }
          this.settle(a, outcome);
        },
      },
    };
  }

  /** How many users and organizations hold state: zero once every request is done and every session ended. */
  holders(): { users: number; organizations: number } {
    const users = new Set([...this.requestsByUser.keys(), ...this.openingByUser.keys()]);
    const organizations = new Set([
      ...this.requestsByOrganization.keys(),
      ...this.openingByOrganization.keys(),
    ]);
    return {
      users: users.size + this.sessionsByUser.owners(),
      organizations: organizations.size + this.sessionsByOrganization.owners(),
    };
  }

  private requestRefusal(userId: string, org: string | undefined): LimitRefusal | null {
    if ((this.requestsByUser.get(userId) ?? 0) >= this.limits.requestsPerUser) {
      return {
        limit: 'requests_per_user',
        retryAfterSeconds: RETRY_REQUESTS_SECONDS,
        message: `you have ${this.limits.requestsPerUser} requests or streams open at this gateway (the limit); retry when one ends`,
      };
    }
    if (
      org !== undefined &&
      (this.requestsByOrganization.get(org) ?? 0) >= this.limits.requestsPerOrganization
    ) {
      return {
        limit: 'requests_per_organization',
        retryAfterSeconds: RETRY_REQUESTS_SECONDS,
        message: `the organization has ${this.limits.requestsPerOrganization} requests or streams open at this gateway (the limit); retry when one ends`,
      };
    }
    return null;
  }

  private sessionRefusal(a: Admission, now: number): LimitRefusal | null {
    const user = this.sessionsByUser.size(a.userId) + (this.openingByUser.get(a.userId) ?? 0);
    if (user >= this.limits.sessionsPerUser) {
      return {
        limit: 'sessions_per_user',
        retryAfterSeconds: this.retryAfter(this.sessionsByUser.oldest(a.userId), now),
        message: `you have ${this.limits.sessionsPerUser} sessions open at this gateway (the limit); end one (DELETE) or retry later`,
      };
    }
    const org = a.organizationId;
    if (org === undefined) return null;
    const count =
      this.sessionsByOrganization.size(org) + (this.openingByOrganization.get(org) ?? 0);
    if (count >= this.limits.sessionsPerOrganization) {
      return {
        limit: 'sessions_per_organization',
        retryAfterSeconds: this.retryAfter(this.sessionsByOrganization.oldest(org), now),
        message: `the organization has ${this.limits.sessionsPerOrganization} sessions open at this gateway (the limit); retry later`,
      };
    }
    return null;
  }

  /** Seconds until the least recently used session goes idle (1 when only openings count). */
  private retryAfter(oldest: number | undefined, now: number): number {
    if (oldest === undefined) return RETRY_REQUESTS_SECONDS;
    return Math.max(1, Math.ceil((oldest + this.idleMs - now) / 1000));
  }

  /** What the answer says about sessions: one was opened, used, or has ended. */
  private settle(a: Admission, outcome: Outcome): void {
    const ok = outcome.status >= 200 && outcome.status < 300;
    if (a.session !== undefined) {
      // 404: the session has ended (or was never this user's, then it was never tracked).
      if (outcome.status === 404 || (outcome.method === 'DELETE' && ok)) {
        this.end(a.session, a.userId);
      } else {
        this.use(a.session, this.now(), a.userId); // a long stream on it kept it in use
      }
      return;
    }
    if (ok && outcome.session !== undefined && !this.sessions.has(outcome.session)) {
      const session = { userId: a.userId, organizationId: a.organizationId, lastUsed: 0 };
      this.sessions.set(outcome.session, session);
      this.use(outcome.session, this.now(), a.userId);
    }
  }

  /** Marks a session used now, when it is the user's (another's id is refused 404, never theirs). */
  private use(id: string, at: number, userId: string): void {
    const session = this.sessions.get(id);
    if (session?.userId !== userId) return;
    session.lastUsed = at;
    this.sessions.delete(id);
    this.sessions.set(id, session);
    this.sessionsByUser.touch(session.userId, id, at);
    if (session.organizationId !== undefined) {
      this.sessionsByOrganization.touch(session.organizationId, id, at);
    }
  }

  private end(id: string, userId?: string): void {
    const session = this.sessions.get(id);
    if (!session || (userId !== undefined && session.userId !== userId)) return;
    this.sessions.delete(id);
    this.sessionsByUser.remove(session.userId, id);
    if (session.organizationId !== undefined) {
      this.sessionsByOrganization.remove(session.organizationId, id);
    }
  }

  /** Ends the sessions idle for too long: the oldest first, so this stops at the first live one. */
  private expire(now: number): void {
    for (const [id, session] of this.sessions) {
      if (now - session.lastUsed < this.idleMs) return;
      this.end(id);
    }
  }
}
