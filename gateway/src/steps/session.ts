import type { Request } from 'express';
import type { SessionBinder } from '../session-id.js';

/** The refusal of a session id this user was not given: like an ended session (404). */
export class SessionUnknown extends Error {}

/**
 * Step 4: the upstream's session id behind the one presented (undefined when none was). A
 * session id not issued to this user and server is unknown, before anything else is done.
 */
export function upstreamSession(
  sessions: SessionBinder,
  req: Request,
  userId: string,
  serverId: string,
): string | undefined {
  const presented = req.get('mcp-session-id');
  if (presented === undefined) return undefined;
  const upstream = sessions.open(presented, userId, serverId);
  if (upstream === undefined) throw new SessionUnknown();
  return upstream;
}
