import type { McpServer, TenantLifecycle } from '@aiplane/crds';
import type { Logger, ResourceCache } from '@aiplane/lib';
import type { CredentialStore, LiveScope } from '@aiplane/lib/store';
import type { AgentStore } from '../agents/store.js';
import type { KnowledgeCleanup } from '../knowledge/cleanup.js';
import type { OrganizationRows } from '../tenants/organization-rows.js';
import { goneServer } from './gone-server.js';
import { agentSweep, goneTenant, organizationMove } from './gone-tenant.js';

/**
 * Rows younger than this are never swept: a server (or tenant) created a moment ago may not be
 * in this replica's cache yet, and its first credential or agent (reference) must not go.
 */
export const ORPHAN_GRACE_SECONDS = 300;
/** How often the sweep runs after the first one (which follows the cache's first sync). */
export const SWEEP_EVERY_MS = 600_000;

export interface McpServerCleanupOptions {
  servers: ResourceCache<McpServer>;
  tenants: ResourceCache<TenantLifecycle>;
  credentials: CredentialStore;
  agents: AgentStore;
  /** Moves rows to a re-created organization's new id (docs/adr/0015). */
  organizations: OrganizationRows;
  /** An organization's files, collections and blobs, and blobs no file names (docs/adr/0032). */
  knowledge: Pick<
    KnowledgeCleanup,
    'removeOrganization' | 'removeOrganizationsNotIn' | 'removeOrphanBlobs'
  >;
  logger: Logger;
  /** Default {@link ORPHAN_GRACE_SECONDS}; tests shorten it. */
  graceSeconds?: number;
}

/** What one sweep removed, by table. */
export interface SweepResult {
  clients: number;
  credentials: number;
  /** Agents whose references to gone servers were dropped. */
  agents: number;
  /** Agents deleted because their organization's tenant is gone. */
  tenantAgents: number;
  /** Settings rows (translations, configuration, branding) of gone tenants' organizations. */
  tenantSettings: number;
  /** Files, folders, collections and their blobs of gone tenants' organizations. */
  tenantKnowledge: number;
  /** Blobs no file names, and staged bytes never committed, older than the grace period. */
  orphanBlobs: number;
}

/**
 * Removes what the database keeps about MCP servers that no longer exist, when they went
 * without `DELETE /v1/mcp/servers/{id}` (their tenant was deleted with its namespace, or
 * someone deleted the resource): the users' credentials, the OAuth registrations and linking
 * states, and agents' references. And the agents of a deleted tenant's organization.
 *
 * - Watch: a server the cache saw deleted (or found gone after a relist, or replaced under its
 *   name by another uid) is forgotten at once, for its organization(s); a tenant the cache saw
 *   go likewise takes every agent of its organization along.
 * - Sweep: after the caches' first sync and then every {@link SWEEP_EVERY_MS}, rows naming a
 *   server that is not live, and agents of an organization no live tenant records, older than
 *   the grace period are removed: what was missed while no API ran, or while a watch cleanup
 *   failed.
 *
 * Everything here is idempotent (several replicas do it at once; the route may have done it
 * first) and never throws into the watch: a failure is logged and left to the next sweep.
 * Only the API runs it, not the gateway.
 */
export class McpServerCleanup {
  private readonly graceSeconds: number;
  private readonly stopping = new AbortController();
  /** Watch cleanups run one after the other: a deleted tenant must not drain the pool. */
  private queue: Promise<void> = Promise.resolve();
  private readonly running = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: McpServerCleanupOptions) {
    this.graceSeconds = opts.graceSeconds ?? ORPHAN_GRACE_SECONDS;
  }

  start(): void {
    const { servers, tenants } = this.opts;
    const unsubscribe = [
      servers.onGone((server) => this.serverGone(server)),
      tenants.onGone((tenant, replacement) => this.tenantGone(tenant, replacement)),
      tenants.onChange((tenant) => this.tenantChanged(tenant)),
    ];
    this.unsubscribe = () => unsubscribe.forEach((u) => u());
    const signal = this.stopping.signal;
    Promise.all([servers.waitForSync(signal), tenants.waitForSync(signal)]).then(
      () => this.sweepIn(0),
      () => undefined, // stopped before the first sync
    );
  }

  /** Stops watching and sweeping, and waits for work under way. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.unsubscribe?.();
    clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
  }

  /** Removes what is kept about one deleted server of an organization; idempotent. */
  async forget(serverId: string, organizationId: string): Promise<void> {
    await this.opts.credentials.removeServer(serverId, organizationId);
    await this.opts.agents.forgetServer(organizationId, serverId);
  }

  /**
   * Removes rows naming servers that are not live, and agents of organizations no live tenant
   * records, older than the grace period.
   */
  async sweep(): Promise<SweepResult> {
    const { servers, tenants, credentials, agents } = this.opts;
    const [freshServers, freshTenants] = await Promise.all([
      servers.listFresh(this.stopping.signal),
      tenants.listFresh(this.stopping.signal),
    ]);
    // The cache adds what this replica just wrote; the fresh LIST guards against a cache that
    // fell behind (a broken watch) by more than the grace period.
    const ids = new Set<string>();
    for (const s of [...servers.list(), ...freshServers]) {
      if (s.metadata?.uid) ids.add(s.metadata.uid.toLowerCase());
    }
    const scope: LiveScope = { live: [...ids], graceSeconds: this.graceSeconds };
    // Linking states go with their OAuth client (ON DELETE CASCADE, migration 0004).
    const removed = {
      clients: await credentials.oauthClients.deleteForServersNotIn(scope),
      credentials: await credentials.deleteForServersNotIn(scope),
      agents: await agents.forgetServersNotIn(scope),
      orphanBlobs: await this.opts.knowledge.removeOrphanBlobs(this.graceSeconds),
    };
    const liveTenants = [...tenants.list(), ...freshTenants];
    // First the rows of re-created organizations move to their new ids (what the watch does
    // while an API runs); the sweep keeps the old ids' rows anyway (agentSweep).
    for (const t of liveTenants) {
      const move = organizationMove(t);
      if (move) await this.opts.organizations.move(move.from, move.to);
    }
    const organizations = agentSweep(liveTenants);
    if (!organizations.sweep) {
      this.opts.logger.info(
        { tenants: organizations.unprovisioned.slice(0, 20) },
        'agents and settings of deleted tenants not swept: a live tenant has no organization recorded yet',
      );
      return { ...removed, tenantAgents: 0, tenantSettings: 0, tenantKnowledge: 0 };
    }
    const organizationScope = {
      live: organizations.liveOrganizationIds,
      graceSeconds: this.graceSeconds,
    };
    const tenantAgents = await agents.removeOrganizationsNotIn(organizationScope);
    const tenantSettings = await this.opts.organizations.removeSettingsNotIn(organizationScope);
    const tenantKnowledge = await this.opts.knowledge.removeOrganizationsNotIn(organizationScope);
    return { ...removed, tenantAgents, tenantSettings, tenantKnowledge };
  }

  private serverGone(server: McpServer): void {
    if (this.stopping.signal.aborted) return;
    const gone = goneServer(server, this.opts.tenants.list());
    if (!gone) return;
    const { serverId, organizationIds } = gone;
    if (organizationIds.length === 0) {
      this.opts.logger.warn(
        { serverId },
        'deleted MCP server has no known organization; its records are left to the sweep',
      );
      return;
    }
    for (const organizationId of organizationIds) {
      this.enqueue({ serverId, organizationId }, 'the records of a deleted MCP server', () =>
        this.forget(serverId, organizationId),
      );
    }
  }

  private tenantGone(tenant: TenantLifecycle, replacement: TenantLifecycle | undefined): void {
    if (this.stopping.signal.aborted) return;
    const gone = goneTenant(tenant, replacement, this.opts.tenants.list());
    if (!gone) return;
    const { organizationId } = gone;
    if (organizationId === undefined) {
      // Deleted before its organization was recorded: no agent can name it (see agentSweep).
      this.opts.logger.debug(
        { tenant: gone.tenant },
        'deleted tenant had no organization; no agents to remove',
      );
      return;
    }
    this.enqueue({ tenant: gone.tenant, organizationId }, 'the agents of a deleted tenant', () =>
      this.opts.agents.removeOrganization(organizationId),
    );
    this.enqueue({ tenant: gone.tenant, organizationId }, 'the settings of a deleted tenant', () =>
      this.opts.organizations.removeSettings(organizationId),
    );
    this.enqueue(
      { tenant: gone.tenant, organizationId },
      'the files and collections of a deleted tenant',
      () => this.opts.knowledge.removeOrganization(organizationId),
    );
  }

  private tenantChanged(tenant: TenantLifecycle): void {
    if (this.stopping.signal.aborted) return;
    const move = organizationMove(tenant);
    if (!move) return;
    this.enqueue(
      { tenant: move.tenant, organizationId: move.to },
      'the rows of its replaced organization ids',
      () => this.opts.organizations.move(move.from, move.to),
      'moved',
    );
  }

  /**
   * Runs one watch cleanup after those before it; logs its outcome with `fields` (ids only).
   * After stop the database goes: what is still queued is left to the next sweep.
   */
  private enqueue(
    fields: Record<string, string>,
    what: string,
    work: () => Promise<unknown>,
    done: 'removed' | 'moved' = 'removed',
  ) {
    const verb = done === 'removed' ? 'remove' : 'move';
    this.queue = this.track(
      this.queue.then(async () => {
        if (this.stopping.signal.aborted) return;
        try {
          const n = await work();
          this.opts.logger.debug({ ...fields, [done]: n }, `${done} ${what}`);
        } catch (err) {
          this.opts.logger.warn({ ...fields, err }, `could not ${verb} ${what}; the sweep retries`);
        }
      }),
    );
  }

  private sweepIn(ms: number): void {
    if (this.stopping.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.track(
        this.sweep().then(
          (removed: SweepResult) => {
            const total = (Object.values(removed) as number[]).reduce((sum, n) => sum + n, 0);
            const level = total > 0 ? 'info' : 'debug';
            this.opts.logger[level](
              { removed },
              'swept records of MCP servers and tenants that are gone',
            );
          },
          (err: unknown) => {
            if (this.stopping.signal.aborted) return;
            this.opts.logger.warn(
              { err },
              'MCP server and tenant sweep failed; it runs again later',
            );
          },
        ),
      ).finally(() => this.sweepIn(SWEEP_EVERY_MS));
    }, ms);
    this.timer.unref();
  }

  /** Remembers work under way until it settles; `p` handles its own failures. */
  private track(p: Promise<void>): Promise<void> {
    this.running.add(p);
    const done = () => void this.running.delete(p);
    void p.then(done, done);
    return p;
  }
}
