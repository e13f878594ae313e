import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startRetention } from '../../src/core/retention.js';
import { openDatabase } from '../../src/db/client.js';
import { transaction } from '../../src/db/sql.js';
import { CoreMetrics } from '../../src/metrics/core-metrics.js';
import { TestCore } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { parseExposition, valueOf } from '../support/prometheus-text.js';

const DAY_MS = 86_400_000;

async function samplesOf(metrics: CoreMetrics) {
  return parseExposition(await metrics.registry.metrics());
}

// The recorders the background jobs call, against a real database, where the core test cannot
// wait for them (retention runs at most once a minute) or cannot reach (one connection reused).
describe('Core metrics recorders', function () {
  this.timeout(60000);
  let core: TestCore;

  before(async () => {
    core = await TestCore.start();
  });
  after(() => core?.stop());

  it('counts a retention run, its duration and the rows it deleted per target', async () => {
    const domain = await core.createDomain('retention-metrics.example');
    const old = new Date(Date.now() - 31 * DAY_MS);
    await core.db.usageEvent.createMany({ data: [1, 2, 3].map((n) => ({ domain_id: domain.id, domain: domain.domain, edge_id: 'edge-1', path: `/${n}`, status: 200, bytes: 1n, cache_status: 'hit', occurred_at: old })) });
    const metrics = new CoreMetrics();
    const config = loadConfig({ DATABASE_URL: core.databaseUrl, CDN_RETENTION_PRUNE_ENABLED: 'true' });
    const stop = startRetention(core.db, core.core.connection.pool, config, pino({ level: 'silent' }), { tickMs: 50, metrics });
    try {
      const samples = await eventually('the retention run', async () => ((found) => (valueOf(found, 'cdn_retention_runs_total', { result: 'ok' }) ? found : undefined))(await samplesOf(metrics)));
      expect(valueOf(samples, 'cdn_retention_runs_total', { result: 'ok' })).to.equal(1);
      expect(valueOf(samples, 'cdn_retention_runs_total', { result: 'failed' })).to.equal(0);
      expect(valueOf(samples, 'cdn_retention_run_duration_seconds_count')).to.equal(1);
      expect(valueOf(samples, 'cdn_retention_deleted_rows_total', { target: 'usage_events' })).to.equal(3);
      expect(valueOf(samples, 'cdn_retention_deleted_rows_total', { target: 'security_events' })).to.equal(0);
    } finally {
      await stop();
    }
  });

  it('counts a failed query on a connection that served a transaction before', async () => {
    const metrics = new CoreMetrics();
    // One connection: the failing query runs on the one the transaction used and gave back.
    const database = openDatabase(core.databaseUrl, pino({ level: 'silent' }), 1, (error) => metrics.queryFailed(error));
    try {
      await transaction(database.prisma, (tx) => tx.domain.count());
      await database.pool.query('SELECT 1 / 0').catch(() => undefined);
      await database.prisma.$queryRawUnsafe('SELECT 1 / 0').catch(() => undefined);
      expect(valueOf(await samplesOf(metrics), 'cdn_db_query_errors_total', { sqlstate_class: '22' })).to.equal(2);
    } finally {
      await database.close();
    }
  });
});
