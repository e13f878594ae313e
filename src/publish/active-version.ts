import pg from 'pg';
import type { Logger } from 'pino';
import { NO_VERSIONS, servedVersion, type VersionState } from './served-version.js';

const CHANNEL = 'cdn_config_published';
/** Notified at each commit that marks the config dirty (markConfigDirty): the publisher's wake-up. */
const CHANGED_CHANNEL = 'cdn_config_changed';
const RECONNECT_MS = 1000;
// The listener also re-reads the version this often: a connection that died silently
// (no error, no notifications) is found by the query's timeout, and nothing stays stale longer.
const RECHECK_MS = 5000;
const QUERY_TIMEOUT_MS = 3000;
/** How the listener shows in pg_stat_activity. */
export const APPLICATION_NAME = 'cdn-config-version-listener';
const READ_VERSIONS = {
  name: 'active-versions',
  text: 'SELECT p.active_version, p.fleet_version, p.canary_version, c.canary_edges FROM publish_state p LEFT JOIN config_canaries c ON c.version = p.canary_version WHERE p.id = 1',
};
type VersionsRow = { active_version: number | null; fleet_version: number | null; canary_version: number | null; canary_edges: string[] | null };

function stateOf(row: VersionsRow | undefined): VersionState {
  if (!row) return NO_VERSIONS;
  return { active: row.active_version, fleet: row.fleet_version, canary: row.canary_version, canaryEdges: new Set(row.canary_edges ?? []) };
}

/** The active, fleet and canary versions as publish_state holds them now (no listener). */
export async function readVersionState(pool: pg.Pool): Promise<VersionState> {
  return stateOf((await pool.query<VersionsRow>(READ_VERSIONS)).rows[0]);
}

/** How a wait for a newer version ended. */
export type WaitOutcome = 'changed' | 'timeout' | 'stopping';
type Waiter = { from: number | null; edgeId: string | undefined; end: (outcome: WaitOutcome) => void };

/**
 * The active snapshot version (with the rollout's fleet and canary versions,
 * docs/rollout.md), kept in memory: a dedicated connection LISTENs on
 * the channel a trigger on publish_state notifies at every commit that changes
 * one of them, and re-reads the row, so every core sees a new version at once without a query per
 * config pull. While that connection is down (and until it has read the current
 * version) `current()` reads the row instead, and the listener reconnects every second.
 * Notifications and re-reads arrive on the one connection in commit order, so the
 * latest message is always the current version.
 */
export class ActiveVersion {
  private known: VersionState | undefined;
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly waiters = new Set<Waiter>();
  private readonly changeListeners: (() => void)[] = [];
  private released = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {}

  /** Whether the version is served from memory (the listener is connected and caught up). */
  get listening(): boolean {
    return this.known !== undefined;
  }

  async current(): Promise<number | null> {
    return (await this.versions()).active;
  }

  /** The active, fleet and canary versions, from memory while listening. */
  async versions(): Promise<VersionState> {
    if (this.known !== undefined) return this.known;
    return readVersionState(this.pool);
  }

  /**
   * Resolves 'changed' as soon as the version served to `edgeId` (servedVersion; the active
   * version when none is named) differs from `from` (at once when it already does), 'timeout' after `ms`, or 'stopping' once releaseWaiters() was called.
   * Woken by the listener's notification or re-read, so a missed notification costs at most
   * RECHECK_MS, and a wait begun while the listener is down ends when it has reconnected.
   */
  async changeFrom(from: number | null, ms: number, edgeId?: string): Promise<WaitOutcome> {
    if (this.known === undefined && servedVersion(await this.versions(), edgeId) !== from) return 'changed';
    if (this.known !== undefined && servedVersion(this.known, edgeId) !== from) return 'changed';
    if (this.released) return 'stopping';
    return new Promise((resolve) => {
      const waiter: Waiter = {
        from,
        edgeId,
        end: (outcome) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(outcome);
        },
      };
      const timer = setTimeout(() => waiter.end('timeout'), ms);
      this.waiters.add(waiter);
    });
  }

  /** Ends every wait, and every later one at once, with 'stopping' (the server is closing: held requests must not hold up its shutdown). */
  releaseWaiters(): void {
    this.released = true;
    for (const waiter of [...this.waiters]) waiter.end('stopping');
  }

  /**
   * Calls `listener` after each commit that marks the config dirty, on any core, while the
   * listener is connected (a missed call costs the publisher one tick of its own).
   */
  onConfigChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /** Connects the listener; a failure is logged and retried, never thrown. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: APPLICATION_NAME, keepAlive: true, query_timeout: QUERY_TIMEOUT_MS });
    this.client = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    // The payload is the active version only; the row is re-read for the fleet and canary versions.
    client.on('notification', (message) => {
      if (message.channel === CHANNEL) void this.read(client).catch((error: Error) => this.lost(client, error));
      else if (message.channel === CHANGED_CHANNEL && client === this.client) for (const listener of this.changeListeners) listener();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      await client.query(`LISTEN ${CHANGED_CHANNEL}`);
      await this.read(client);
      if (client !== this.client) return;
      this.recheck = setInterval(() => void this.read(client).catch((error: Error) => this.lost(client, error)), RECHECK_MS);
      this.recheck.unref();
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  private async read(client: pg.Client): Promise<void> {
    const { rows } = await client.query<VersionsRow>(READ_VERSIONS.text);
    this.learn(client, stateOf(rows[0]));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.recheck);
    const client = this.client;
    this.client = undefined;
    this.known = undefined;
    await client?.end().catch(() => undefined);
  }

  private learn(client: pg.Client, state: VersionState): void {
    if (client !== this.client) return;
    this.known = state;
    for (const waiter of [...this.waiters]) if (waiter.from !== servedVersion(state, waiter.edgeId)) waiter.end('changed');
  }

  private lost(client: pg.Client, error?: Error): void {
    if (client !== this.client) return;
    clearInterval(this.recheck);
    this.client = undefined;
    this.known = undefined;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    this.logger.warn({ err: error?.message }, 'config version listener lost; reading the version per request until it reconnects');
    this.retry = setTimeout(() => void this.start(), RECONNECT_MS);
    this.retry.unref();
  }
}
