import { hostname } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import { connect, type Connection } from '../db/connect.js';
import { createApp } from '../http/app.js';
import { withDirectLane } from '../http/direct-lane.js';
import { loadApiSchemas } from '../http/validation.js';
import { ensureBootstrapAdmin } from '../features/admin/service.js';
import { ensureBootstrapEdgeToken } from '../features/edges/tokens.js';
import { ActiveSnapshotCache, startPublisher } from '../publish/publisher.js';
import { startCanaryLoop } from '../features/rollout/canary-loop.js';
import { BURST_TIMING } from '../publish/dirty.js';
import { DnsSync } from '../publish/dns/dns-sync.js';
import { startDnsSync, type DnsSyncLoop } from '../publish/dns/dns-sync-loop.js';
import { powerDnsClient } from '../publish/dns/powerdns-connection.js';
import { ActiveVersion } from '../publish/active-version.js';
import { snapshotDefaults } from '../features/snapshots/routes.js';
import { startHousekeeping } from './housekeeping.js';
import { delegationLookup } from '../features/domains/delegation.js';
import { startNameserverChecks } from '../features/domains/nameserver-checks.js';
import { startRetention } from './retention.js';
import { startSslScheduler } from '../features/ssl/ssl-scheduler.js';
import { secretBoxOf } from '../features/ssl/key-storage.js';
import { coreRoutes } from './routes.js';
import { ApiClient } from '../gitops/api-client.js';
import { GitopsController } from '../gitops/controller.js';
import { configuredCredentials } from '../gitops/git-access.js';
import { sourceFor } from '../gitops/source.js';
import { CoreMetrics } from '../metrics/core-metrics.js';
import { registerStateGauges } from '../metrics/state-gauges.js';

export type RunningCore = { url: string; port: number; connection: Connection; stop: () => Promise<void> };

async function bootstrap(config: Config, connection: Connection, logger: Logger): Promise<void> {
  if (await ensureBootstrapEdgeToken(connection.prisma, config.bootstrapEdgeToken)) logger.info('bootstrap edge token registered');
  if (!config.bootstrapAdminUser) return;
  const created = await ensureBootstrapAdmin(connection.prisma, config.bootstrapAdminUsername!, config.bootstrapAdminPassword!);
  logger.info({ username: config.bootstrapAdminUsername, created }, created ? 'bootstrap admin created' : 'bootstrap admin already exists');
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

const GRACE_MS = 5000;

// Stops accepting connections, lets in-flight requests finish for a few seconds, then cuts the rest.
async function closeGracefully(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), GRACE_MS);
  await closed;
  clearTimeout(timer);
}

// With CDN_GITOPS_REPO the core reconciles that repository itself, through its own REST API.
function startGitops(config: Config, url: string, logger: Logger, metrics: CoreMetrics): GitopsController | undefined {
  if (!config.gitopsRepo) return undefined;
  const source = sourceFor(config.gitopsRepo, config.gitopsBranch, config.gitopsPath, config.dataDir, configuredCredentials(config));
  const controller = new GitopsController({
    source,
    client: new ApiClient(url, config.apiToken),
    intervalMs: config.gitopsIntervalSeconds * 1000,
    logger: logger.child({ component: 'gitops' }),
    metrics,
  });
  controller.start();
  logger.info({ repo: source.label, branch: config.gitopsBranch }, 'gitops controller started in the core');
  return controller;
}

// With CDN_POWERDNS_API_URL the core publishes every domain's zone to PowerDNS (docs/dns-publishing.md).
function startDns(config: Config, connection: Connection, logger: Logger, metrics: CoreMetrics): DnsSyncLoop | undefined {
  const client = powerDnsClient(config);
  if (!client) return undefined;
  const sync = new DnsSync({ db: connection.prisma, pool: connection.pool, config, client, logger });
  logger.info({ url: config.powerdnsApiUrl, server: config.powerdnsServerId }, 'dns publishing to PowerDNS started');
  return startDnsSync(connection.prisma, sync, logger, { ...BURST_TIMING, fullEveryMs: config.syncIntervalSeconds * 1000 }, metrics);
}

/** Connects (and migrates when CDN_AUTO_MIGRATE), bootstraps, and serves the API on CDN_BIND:CDN_CORE_PORT. */
export async function startCore(config: Config, logger: Logger): Promise<RunningCore> {
  const metrics = new CoreMetrics();
  const connection = await connect(config, logger, { migrate: config.autoMigrate, onQueryError: (error) => metrics.queryFailed(error) });
  metrics.watchPool(connection.pool);
  registerStateGauges(metrics.registry, { pool: connection.pool, db: connection.prisma, config });
  const activeVersion = new ActiveVersion(connection.pool, connection.url, logger.child({ component: 'config-version' }));
  try {
    await bootstrap(config, connection, logger);
    const gitops: { controller?: GitopsController } = {};
    const dns: { loop?: DnsSyncLoop } = {};
    await activeVersion.start();
    const servedSnapshots = new ActiveSnapshotCache();
    const deps = { config, prisma: connection.prisma, pool: connection.pool, ajv: loadApiSchemas(), logger, activeVersion, servedSnapshots, gitops, dns, metrics };
    const routes = coreRoutes(deps);
    const httpServer = createServer(withDirectLane(createApp(deps, routes), deps, routes));
    httpServer.keepAliveTimeout = 65000;
    const port = await listen(httpServer, config.corePort, config.bind);
    const url = `http://${config.bind.includes(':') ? `[${config.bind}]` : config.bind}:${port}`;
    logger.info({ url, embeddedDatabase: connection.embedded }, 'core listening');
    gitops.controller = startGitops(config, url, logger, metrics);
    const stopPublisher = config.publishEnabled ? startPublisher(connection.prisma, connection.pool, config, snapshotDefaults(deps), logger.child({ component: 'publisher' }), { onConfigChange: (listener) => activeVersion.onConfigChange(listener), onStored: (stored) => servedSnapshots.prime(stored), metrics }) : async () => {};
    // The canary rollout's decisions (docs/rollout.md) run where the publisher does: they decide which published version edges get.
    const stopCanaryLoop = config.publishEnabled ? startCanaryLoop(connection.prisma, connection.pool, config.edgeHeartbeatFreshSeconds, logger.child({ component: 'canary-rollout' })) : async () => {};
    dns.loop = startDns(config, connection, logger.child({ component: 'dns-sync' }), metrics);
    const stopHousekeeping = startHousekeeping(connection, config, logger.child({ component: 'housekeeping' }));
    const stopNameserverChecks = startNameserverChecks({ db: connection.prisma, pool: connection.pool, config, logger: logger.child({ component: 'nameserver-checks' }), lookup: delegationLookup(config) });
    const stopRetention = startRetention(connection.prisma, connection.pool, config, logger.child({ component: 'retention' }), { metrics });
    const stopSslScheduler = startSslScheduler({ db: connection.prisma, pool: connection.pool, config, box: secretBoxOf(config), logger: logger.child({ component: 'ssl-scheduler' }), coreId: `${hostname()}:${process.pid}:${port}` });
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        await stopHousekeeping();
        await stopNameserverChecks();
        await stopRetention();
        await stopSslScheduler();
        await stopPublisher();
        await stopCanaryLoop();
        await dns.loop?.stop();
        await gitops.controller?.stop();
        // Held config long-polls are answered 503 at once, so their edges ask again elsewhere and the close does not wait for them.
        activeVersion.releaseWaiters();
        await closeGracefully(httpServer);
        await activeVersion.stop();
        await connection.shutdown();
        logger.info('core stopped');
      })());
    return { url, port, connection, stop };
  } catch (error) {
    await activeVersion.stop();
    await connection.shutdown();
    throw error;
  }
}
