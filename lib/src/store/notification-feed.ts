import pg from 'pg';
import type { Logger } from '../logger.js';

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;

/**
 * Hears one PostgreSQL channel's notifications, every replica's, as their transactions commit
 * (LISTEN on one connection of its own), so a replica may keep what they announce changes in
 * memory: API keys verified (docs/adr/0024, latency), MCP credentials (docs/adr/0043). `live`
 * is true only while the connection listens. When it drops, `onLost` runs (the cache empties:
 * a change might be missed while deaf) and it reconnects with backoff.
 */
export class NotificationFeed {
  private client: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private retryMs = RETRY_FIRST_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly opts: {
      databaseUrl: string;
      logger: Logger;
      channel: string;
      /** What is cached while the feed is live, for the log line when it is lost. */
      what: string;
      onNotice: (payload: string) => void;
      onLost: () => void;
    },
  ) {}

  /** Whether notifications are heard now (what they announce may be cached). */
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
          { err, channel: this.opts.channel },
          `${this.opts.what}: the change feed was lost; each request asks the database`,
        );
      }
      this.timer = setTimeout(() => void this.connect(), this.retryMs);
      this.timer.unref();
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (n) => {
      if (n.channel === this.opts.channel && n.payload) this.opts.onNotice(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.opts.channel)}`);
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
