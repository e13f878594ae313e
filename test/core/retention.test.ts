import { expect } from 'chai';
import pg from 'pg';
import { testPool } from '../support/database.js';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config/load.js';
import { LOCK_KEYS } from '../../src/db/advisory-lock.js';
import { runRetention, startRetention } from '../../src/core/retention.js';
import { startCore } from '../../src/core/start.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';

const DAY_MS = 86400000;
const BATCH = 3;

describe('retention scheduler', () => {
  let core: TestCore;
  let domainId: string;
  let config: Config;
  const env = { CDN_RETENTION_PRUNE_ENABLED: 'true', CDN_RETENTION_BATCH_SIZE: String(BATCH), CDN_RETENTION_INTERVAL_SECONDS: '3600' };
  // The suite's own core does not run the scheduler (its ticks would race the tests); the tests run it.
  before(async () => {
    core = await TestCore.start();
    config = loadConfig({ DATABASE_URL: core.databaseUrl, ...env });
    domainId = (await core.createDomain('retention.example')).id;
  });
  after(async () => {
    await core.stop();
  });
  beforeEach(async () => {
    await core.core.connection.pool.query('TRUNCATE usage_events, usage_aggregates, origin_health_observations, security_events, dns_sync_events, ssl_jobs, ingest_keys, retention_state');
  });

  const ago = (days: number, now: Date) => new Date(now.getTime() - days * DAY_MS);
  const run = (now: Date) => runRetention(core.db, core.core.connection.pool, config, now);

  // Rows on both sides of every cutoff (defaults: analytics and DNS 30 days, security 90, SSL jobs 180, ingest keys 7).
  async function seed(now: Date, oldUsageEvents = 7): Promise<void> {
    const db = core.db;
    const usage = (days: number, path: string) => ({ domain_id: domainId, domain: 'retention.example', edge_id: 'edge-1', path, status: 200, bytes: 1n, cache_status: 'hit', occurred_at: ago(days, now) });
    await db.usageEvent.createMany({ data: [...Array.from({ length: oldUsageEvents }, (_, index) => usage(31, `/old/${index}`)), usage(29, '/young/1'), usage(29, '/young/2')] });
    const aggregate = (bucket: 'minute' | 'hour' | 'day', bucketStart: Date) => ({ bucket, bucket_start: bucketStart, domain_id: domainId, requests: 1n });
    const cutoff = ago(30, now);
    await db.usageAggregate.createMany({
      data: [
        aggregate('minute', ago(31, now)),
        aggregate('minute', new Date(cutoff.getTime() - 30000)), // its minute reaches past the cutoff
        aggregate('minute', ago(29, now)),
        aggregate('hour', ago(400, now)),
        aggregate('day', ago(400, now)),
      ],
    });
    const observation = (days: number) => ({ domain_id: domainId, origin_id: 'origin-1', edge_id: 'edge-1', source: 'probe', success: true, observed_at: ago(days, now) });
    await db.originHealthObservation.createMany({ data: [observation(31), observation(29)] });
    const security = (days: number) => ({ domain: 'retention.example', edge_id: 'edge-1', kind: 'waf', action: 'block', occurred_at: ago(days, now) });
    await db.securityEvent.createMany({ data: [security(91), security(89)] });
    const sync = (days: number, success: boolean) => ({ zone_name: 'retention.example.', action: 'patch', success, created_at: ago(days, now) });
    await db.dnsSyncEvent.createMany({ data: [sync(31, true), sync(31, false), sync(29, true)] });
    const job = (days: number, status: string, finished: boolean) => ({ domain_id: domainId, kind: 'issue', status, hostnames: ['retention.example'], updated_at: ago(days, now), finished_at: finished ? ago(days, now) : null });
    await db.sslJob.createMany({ data: [job(181, 'succeeded', true), job(181, 'failed', true), job(181, 'cancelled', false), job(181, 'queued', false), job(181, 'running', false), job(179, 'succeeded', true)] });
    await db.ingestKey.createMany({ data: [{ stream: 'usage', key: 'old', edge_id: 'edge-1', created_at: ago(8, now) }, { stream: 'usage', key: 'young', edge_id: 'edge-1', created_at: ago(6, now) }] });
  }

  const EXPECTED_DELETED = { usage_events: 7, usage_aggregates_minute: 1, origin_health_observations: 1, security_events: 1, dns_sync_events: 1, ssl_jobs: 3, ingest_keys: 1 };

  it('needs only the one connection that holds the lock: a run completes on a pool of one', async () => {
    const now = new Date();
    await seed(now);
    const single = testPool({ connectionString: core.databaseUrl, max: 1, connectionTimeoutMillis: 5000 });
    try {
      const result = await runRetention(core.db, single, config, now);
      expect(result).to.deep.include({ outcome: 'ran', error: null });
      expect(await core.db.usageEvent.count()).to.equal(2);
    } finally {
      await single.end();
    }
  });

  it('prunes rows older than each retention and keeps young rows, hour and day aggregates, failed DNS events and active SSL jobs', async () => {
    const now = new Date();
    await seed(now);
    const result = await run(now);
    expect(result).to.deep.include({ outcome: 'ran', deleted: EXPECTED_DELETED, error: null });
    const db = core.db;
    expect((await db.usageEvent.findMany({ orderBy: { path: 'asc' } })).map((row) => row.path)).to.deep.equal(['/young/1', '/young/2']);
    expect((await db.usageAggregate.findMany({ orderBy: [{ bucket: 'asc' }, { bucket_start: 'asc' }] })).map((row) => row.bucket)).to.deep.equal(['minute', 'minute', 'hour', 'day']);
    expect(await db.originHealthObservation.count()).to.equal(1);
    expect(await db.securityEvent.count()).to.equal(1);
    expect((await db.dnsSyncEvent.findMany({ orderBy: { id: 'asc' } })).map((row) => row.success)).to.deep.equal([false, true]);
    expect((await db.sslJob.findMany()).map((row) => row.status).sort()).to.deep.equal(['queued', 'running', 'succeeded']);
    expect((await db.ingestKey.findMany()).map((row) => row.key)).to.deep.equal(['young']);
  });

  it('loops through many times the batch size until every old row is gone', async () => {
    const now = new Date();
    await seed(now, BATCH * 5 + 2);
    expect(await run(now)).to.deep.include({ outcome: 'ran', deleted: { ...EXPECTED_DELETED, usage_events: BATCH * 5 + 2 } });
    expect(await core.db.usageEvent.count()).to.equal(2);
  });

  it('skips a run while another core holds the retention lock, and deletes nothing', async () => {
    const now = new Date();
    await seed(now);
    const otherCore = new pg.Client({ connectionString: core.databaseUrl });
    await otherCore.connect();
    try {
      await otherCore.query('SELECT pg_advisory_lock($1)', [LOCK_KEYS.retention]);
      expect(await run(now)).to.deep.equal({ outcome: 'locked' });
      expect(await core.db.usageEvent.count()).to.equal(9);
      expect(await core.db.retentionState.count()).to.equal(0);
    } finally {
      await otherCore.end();
    }
    expect((await run(now)).outcome).to.equal('ran');
  });

  it('lets only one of two concurrent runs prune', async () => {
    const now = new Date();
    await seed(now);
    const results = await Promise.all([run(now), run(now)]);
    const ran = results.filter((result) => result.outcome === 'ran');
    expect(ran).to.have.length(1);
    expect(ran[0]).to.deep.include({ deleted: EXPECTED_DELETED });
    expect(results.map((result) => result.outcome).sort()[0]).to.be.oneOf(['locked', 'not_due']);
  });

  it('runs once per interval across cores: a run within the interval of the last one is not due', async () => {
    const now = new Date();
    expect((await run(now)).outcome).to.equal('ran');
    expect(await run(new Date(now.getTime() + 3599000))).to.deep.equal({ outcome: 'not_due' });
    expect((await run(new Date(now.getTime() + 3600000))).outcome).to.equal('ran');
  });

  it('runs on its schedule, keeps pruning the other tables when one fails, and shows the run in readiness and the overview', async () => {
    const now = new Date();
    await seed(now);
    const pool = core.core.connection.pool;
    await pool.query('ALTER TABLE ssl_jobs RENAME TO ssl_jobs_away');
    const stop = startRetention(core.db, pool, config, pino({ level: 'silent' }), { tickMs: 50, now: () => now });
    try {
      await eventually('a scheduled run', async () => ((await core.db.retentionState.findUnique({ where: { id: 1 } }))?.last_finished_at ? true : undefined), 5000);
    } finally {
      await stop();
      await pool.query('ALTER TABLE ssl_jobs_away RENAME TO ssl_jobs');
    }
    const readiness = (await core.get('/api/v1/readiness')).retention;
    const { ssl_jobs: _failed, ...others } = EXPECTED_DELETED;
    expect(readiness).to.deep.include({ enabled: false, last_success_at: null, next_run_at: null });
    expect(readiness.last_run).to.deep.include({ started_at: Math.floor(now.getTime() / 1000), deleted: others });
    expect(readiness.last_run.duration_ms).to.be.a('number');
    expect(readiness.last_run.error).to.match(/^ssl_jobs: .*ssl_jobs/);
    const overview = (await core.get('/api/v1/overview')).data;
    expect(overview.retention).to.deep.equal(readiness);
    expect(overview.recent_errors.map((item: Json) => item.source)).to.include('retention');
    expect(await core.db.usageEvent.count()).to.equal(2);
  });

  it('shows a successful run, and when the next is due, on a core that runs the scheduler', async () => {
    const now = new Date();
    await seed(now);
    await run(now);
    const scheduling = await startCore(loadConfig({ CDN_CORE_PORT: '0', CDN_PUBLISH_ENABLED: 'false', DATABASE_URL: core.databaseUrl, ...env }), pino({ level: 'silent' }));
    try {
      const response = await fetch(`${scheduling.url}/api/v1/readiness`);
      const status = ((await response.json()) as Json).retention;
      expect(status).to.deep.include({ enabled: true, interval_seconds: 3600, batch_size: BATCH, next_run_at: Math.floor(now.getTime() / 1000) + 3600 });
      expect(status.last_run).to.deep.include({ started_at: Math.floor(now.getTime() / 1000), deleted: EXPECTED_DELETED, error: null });
      expect(status.last_success_at).to.equal(status.last_run.finished_at);
    } finally {
      await scheduling.stop();
    }
  });

  it('does not run at all when CDN_RETENTION_PRUNE_ENABLED is off', async () => {
    const now = new Date();
    await seed(now);
    const stop = startRetention(core.db, core.core.connection.pool, { ...config, retentionPruneEnabled: false }, pino({ level: 'silent' }), { tickMs: 20, now: () => now });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await stop();
    expect(await core.db.retentionState.count()).to.equal(0);
    expect(await core.db.usageEvent.count()).to.equal(9);
  });
});
