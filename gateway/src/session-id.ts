import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveActiveKey, type Keyring } from '@aiplane/lib/crypto';

/**
 * Session ids the gateway shows clients: the upstream's `Mcp-Session-Id` bound to the user and
 * server it was opened for, `<upstream id>.<mac>`. The mac (HMAC-SHA256, truncated) is keyed by
 * a key derived from the credential keyring's active key, so every gateway replica checks it
 * without shared state, and a session id presented by another user (or for another server) is
 * unknown: 404, as for an ended session.
 */
/** The longest (server, user, upstream id) whose mac is remembered. */
const MAX_REMEMBERED_LENGTH = 512;

export class SessionBinder {
  private readonly key: Buffer;
  /** Macs computed lately, by what they sign: a session's every call needs the same one. */
  private readonly macs = new Map<string, string>();

  constructor(
    keyring: Keyring,
    private readonly maxRemembered = 10_000,
  ) {
    this.key = deriveActiveKey(keyring, 'aiplane-gateway-session');
  }

  private mac(upstream: string, userId: string, serverId: string): string {
    const signed = `${serverId}\0${userId}\0${upstream}`;
    const known = this.macs.get(signed);
    if (known !== undefined) return known;
    const mac = createHmac('sha256', this.key).update(signed).digest('base64url').slice(0, 32);
    // An upstream chooses its session ids: a long one is not kept (memory stays bounded).
    if (signed.length > MAX_REMEMBERED_LENGTH) return mac;
    if (this.macs.size >= this.maxRemembered) {
      const oldest = this.macs.keys().next().value;
      if (oldest !== undefined) this.macs.delete(oldest);
    }
    this.macs.set(signed, mac);
    return mac;
  }

  /** The id to give the client for an upstream session. */
  bind(upstream: string, userId: string, serverId: string): string {
    return `${upstream}.${this.mac(upstream, userId, serverId)}`;
  }

  /** The upstream session id, or undefined when the id was not issued to this user and server. */
  open(presented: string, userId: string, serverId: string): string | undefined {
    const dot = presented.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const upstream = presented.slice(0, dot);
    const given = Buffer.from(presented.slice(dot + 1));
    const wanted = Buffer.from(this.mac(upstream, userId, serverId));
    return given.length === wanted.length && timingSafeEqual(given, wanted) ? upstream : undefined;
  }
}
