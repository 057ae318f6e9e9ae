import pg from 'pg';
import type { Logger } from '../logger.js';

/** The PostgreSQL channel a revocation is announced on; the payload is the key's id. */
export const API_KEY_REVOKED_CHANNEL = 'aiplane_api_key_revoked';

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;

/**
 * Hears every replica's API-key revocations as they commit (LISTEN on one connection of its
 * own) so a replica may keep verified keys in memory (docs/adr/0024, latency): `live` is true
 * only while the connection listens. When it drops, `onLost` runs (the cache empties: a
 * revocation might be missed while deaf) and it reconnects with backoff.
 */
export class ApiKeyRevocations {
  private client: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private retryMs = RETRY_FIRST_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly opts: {
      databaseUrl: string;
      logger: Logger;
      onRevoked: (id: string) => void;
      onLost: () => void;
    },
  ) {}

  /** Whether revocations are heard now (a cached key may be trusted). */
  get live(): boolean {
    return this.listening;
  }

  /** Starts listening; resolves once the first attempt has listened or failed. */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.opts.databaseUrl,
      // A connection lost without a word (a partition) is noticed, not trusted for ever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    this.client = client;
    let lost = false;
    const drop = (err?: Error) => {
      if (lost) return;
      lost = true;
      const wasListening = this.listening;
      this.listening = false;
      this.opts.onLost();
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.closed) return;
      if (wasListening) {
        this.opts.logger.warn(
          { err },
          'API key revocation feed lost; keys are checked per request',
        );
      }
      this.timer = setTimeout(() => void this.connect(), this.retryMs);
      this.timer.unref();
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (n) => {
      if (n.channel === API_KEY_REVOKED_CHANNEL && n.payload) this.opts.onRevoked(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${API_KEY_REVOKED_CHANNEL}`);
      if (lost || this.closed) return;
      this.listening = true;
      this.retryMs = RETRY_FIRST_MS;
    } catch (err) {
      drop(err as Error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.timer) clearTimeout(this.timer);
    await this.client?.end().catch(() => undefined);
  }
}
