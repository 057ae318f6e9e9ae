import assert from 'node:assert/strict';
import { type Admission, GatewayLimiter, type GatewayLimits, type Ticket } from './limits.js';

const limits: GatewayLimits = {
  requestsPerUser: 2,
  requestsPerOrganization: 3,
  sessionsPerUser: 2,
  sessionsPerOrganization: 3,
  sessionIdleSeconds: 60,
};

function limiter(clock = { now: 0 }) {
  return new GatewayLimiter(limits, () => clock.now);
}

const request = (userId: string, organizationId?: string, more: Partial<Admission> = {}) => ({
  userId,
  organizationId,
  session: undefined,
  opensSession: false,
  ...more,
});

function admitted(result: ReturnType<GatewayLimiter['admit']>): Ticket {
  assert.ok('ticket' in result, `refused: ${'refusal' in result ? result.refusal.message : ''}`);
  return result.ticket;
}

function refused(result: ReturnType<GatewayLimiter['admit']>) {
  assert.ok('refusal' in result, 'admitted');
  return result.refusal;
}

const ok = { status: 200, session: undefined, method: 'POST' };

describe('GatewayLimiter', () => {
  describe('concurrent requests', () => {
    it('refuses a user’s request over the per-user cap with a 1 s retry, and admits another user', () => {
      const l = limiter();
      admitted(l.admit(request('u1')));
      admitted(l.admit(request('u1')));
      const refusal = refused(l.admit(request('u1')));
      assert.equal(refusal.limit, 'requests_per_user');
      assert.equal(refusal.retryAfterSeconds, 1);
      assert.match(refusal.message, /2 requests or streams open/);
      admitted(l.admit(request('u2')));
    });

    it('admits the user again once one of their requests is done', () => {
      const l = limiter();
      const first = admitted(l.admit(request('u1')));
      admitted(l.admit(request('u1')));
      refused(l.admit(request('u1')));
      first.done(ok);
      admitted(l.admit(request('u1')));
    });

    it('frees a slot once only, however often done is called', () => {
      const l = limiter();
      const first = admitted(l.admit(request('u1')));
      admitted(l.admit(request('u1')));
      first.done(ok);
      first.done(ok);
      admitted(l.admit(request('u1')));
      refused(l.admit(request('u1')));
    });

    it('refuses over the per-organization cap, across users, and counts other organizations apart', () => {
      const l = limiter();
      admitted(l.admit(request('u1', 'o1')));
      admitted(l.admit(request('u2', 'o1')));
      admitted(l.admit(request('u3', 'o1')));
      assert.equal(refused(l.admit(request('u4', 'o1'))).limit, 'requests_per_organization');
      admitted(l.admit(request('u4', 'o2')));
      admitted(l.admit(request('u4')));
    });

    it('takes nothing for a refused request', () => {
      const l = limiter();
      const tickets = [
        admitted(l.admit(request('u1', 'o1'))),
        admitted(l.admit(request('u2', 'o1'))),
      ];
      admitted(l.admit(request('u3', 'o1')));
      refused(l.admit(request('u1', 'o1')));
      refused(l.admit(request('u1', 'o1')));
      for (const t of tickets) t.done(ok);
      admitted(l.admit(request('u1', 'o1')));
      admitted(l.admit(request('u1', 'o1')));
    });

    it('holds no state once every request is done (no leak per user or organization)', () => {
      const l = limiter();
      const tickets = ['u1', 'u2', 'u3'].map((u) => admitted(l.admit(request(u, 'o1'))));
      for (const t of tickets) t.done(ok);
      assert.deepEqual(l.holders(), { users: 0, organizations: 0 });
    });
  });

  describe('live sessions', () => {
    const initialize = (userId: string, organizationId?: string) =>
      request(userId, organizationId, { opensSession: true });
    const open = (l: GatewayLimiter, userId: string, session: string, organizationId?: string) =>
      admitted(l.admit(initialize(userId, organizationId))).done({ ...ok, session });

    it('refuses an initialize over the per-user cap, not a request within a session', () => {
      const l = limiter();
      open(l, 'u1', 's1');
      open(l, 'u1', 's2');
      assert.equal(refused(l.admit(initialize('u1'))).limit, 'sessions_per_user');
      admitted(l.admit(request('u1', undefined, { session: 's1' }))).done(ok);
      admitted(l.admit(initialize('u2'))).done(ok);
    });

    it('counts initializes still in flight, so concurrent ones cannot overshoot', () => {
      const l = limiter();
      const a = admitted(l.admit(initialize('u1')));
      open(l, 'u1', 's1');
      assert.equal(refused(l.admit(initialize('u1'))).limit, 'sessions_per_user');
      a.done({ ...ok, status: 500 });
      admitted(l.admit(initialize('u1')));
    });

    it('frees a session on a successful DELETE and on a 404 answer', () => {
      const l = limiter();
      open(l, 'u1', 's1');
      open(l, 'u1', 's2');
      admitted(l.admit(request('u1', undefined, { session: 's1' }))).done({
        status: 204,
        session: undefined,
        method: 'DELETE',
      });
      open(l, 'u1', 's3');
      refused(l.admit(initialize('u1')));
      admitted(l.admit(request('u1', undefined, { session: 's2' }))).done({
        status: 404,
        session: undefined,
        method: 'POST',
      });
      admitted(l.admit(initialize('u1')));
    });

    it('keeps a session when another user presents its id and is answered 404', () => {
      const l = limiter();
      open(l, 'u1', 's1');
      open(l, 'u1', 's2');
      admitted(l.admit(request('u2', undefined, { session: 's1' }))).done({
        status: 404,
        session: undefined,
        method: 'DELETE',
      });
      refused(l.admit(initialize('u1')));
    });

    it('keeps a session on a refused DELETE', () => {
      const l = limiter();
      open(l, 'u1', 's1');
      open(l, 'u1', 's2');
      admitted(l.admit(request('u1', undefined, { session: 's1' }))).done({
        status: 405,
        session: undefined,
        method: 'DELETE',
      });
      refused(l.admit(initialize('u1')));
    });

    it('stops counting an idle session, and says in Retry-After when the oldest goes idle', () => {
      const clock = { now: 0 };
      const l = limiter(clock);
      open(l, 'u1', 's1');
      clock.now = 10_000;
      open(l, 'u1', 's2');
      clock.now = 20_000;
      // s1 was used last at 0 s: idle after 60 s, 40 s from now.
      assert.equal(refused(l.admit(initialize('u1'))).retryAfterSeconds, 40);
      clock.now = 30_000;
      admitted(l.admit(request('u1', undefined, { session: 's1' }))).done(ok);
      // s2 (10 s) is now the oldest: idle at 70 s.
      assert.equal(refused(l.admit(initialize('u1'))).retryAfterSeconds, 40);
      clock.now = 70_000;
      admitted(l.admit(initialize('u1')));
    });

    it('refuses over the per-organization session cap, across users', () => {
      const l = limiter();
      open(l, 'u1', 's1', 'o1');
      open(l, 'u2', 's2', 'o1');
      open(l, 'u3', 's3', 'o1');
      assert.equal(refused(l.admit(initialize('u4', 'o1'))).limit, 'sessions_per_organization');
      admitted(l.admit(initialize('u4', 'o2')));
    });

    it('holds no state once every session has ended or gone idle', () => {
      const clock = { now: 0 };
      const l = limiter(clock);
      open(l, 'u1', 's1', 'o1');
      open(l, 'u2', 's2', 'o1');
      admitted(l.admit(request('u1', 'o1', { session: 's1' }))).done({
        status: 200,
        session: undefined,
        method: 'DELETE',
      });
      clock.now = 61_000;
      admitted(l.admit(request('u3'))).done(ok);
      assert.deepEqual(l.holders(), { users: 0, organizations: 0 });
    });
  });
});
