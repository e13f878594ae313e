import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { publishOnce, startPublisher } from '../../src/publish/publisher.js';
import { TestCore, type Json } from '../support/core.js';
import { eventually } from '../support/eventually.js';

const TOKEN = 'publish-backoff-token';
const DEFAULTS = {
  cache: { caching_enabled: true, default_edge_ttl_seconds: 3600, browser_ttl_seconds: 14400, respect_origin_cache_control: true, query_string_mode: 'include', stale_while_revalidate_seconds: 0, stale_if_error_seconds: 0, development_mode: false, targeted_cache_control_header: null, strict_rfc9111: false },
  ssl: { mode: 'full', automatic: true, always_https: false, min_tls_version: '1.2', hsts_enabled: false, hsts_max_age: 31536000 },
};
// Ticks far faster than the backoff, so "a build on every tick" and "a build per backoff period" differ by an order of magnitude.
const FAST_TICKS = { tickMs: 50, quietMs: 0, maxWaitMs: 0 };
const ONE_SECOND = { firstMs: 1000, maxMs: 1000 };

/** A pino logger that keeps the messages it logs. */
function recordingLogger(): { logger: pino.Logger; messages: string[] } {
  const messages: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      messages.push(JSON.parse(chunk.toString()).msg);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), messages };
}

describe('config snapshots: a failed publish backs off', function () {
  this.timeout(60000);
  let core: TestCore;
  let replica: Database;

  const state = () => core.db.publishState.findUniqueOrThrow({ where: { id: 1 } });
  const publishWarnings = async () => (await core.get('/api/v1/overview/warnings')).data.warnings.filter((warning: Json) => ['publish_failing', 'config_not_published'].includes(warning.code));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: TOKEN });
    core.token = TOKEN;
    // A second core replica's own connections to the same database.
    replica = openDatabase(core.databaseUrl, pino({ level: 'silent' }), 2);
    const operations = Array.from({ length: 5 }, (_, i) => [
      { ref: `d${i}`, method: 'POST', path: '/api/v1/domains', body: { domain: `backoff-${i}.example` } },
      { method: 'POST', path: `/api/v1/domains/@{d${i}}/origins`, body: { host: `origin.backoff-${i}.example` } },
      { method: 'POST', path: `/api/v1/domains/@{d${i}}/activate`, body: { override: true } },
    ]).flat();
    await core.post('/api/v1/batch', { operations });
  });
  after(async () => {
    await replica.close();
    await core.stop();
  });

  it('builds a snapshot over the size limit once per backoff period across two replicas, not on every tick, even while changes arrive', async () => {
    const tiny = loadConfig({ DATABASE_URL: core.databaseUrl, CDN_EDGE_CONFIG_MAX_BYTES: '1024' });
    const first = recordingLogger();
    const second = recordingLogger();
    const stops = [
      startPublisher(core.db, core.core.connection.pool, tiny, DEFAULTS, first.logger, { timing: FAST_TICKS, backoff: ONE_SECOND }),
      startPublisher(replica.prisma, replica.pool, tiny, DEFAULTS, second.logger, { timing: FAST_TICKS, backoff: ONE_SECOND }),
    ];
    const started = Date.now();
    // A change every 200 ms: each one dirty again, none of them cutting the backoff short.
    for (let i = 0; Date.now() - started < 3500; i++) {
      await core.post('/api/v1/domains', { domain: `during-${i}.example` }, 201);
      await sleep(200);
    }
    await Promise.all(stops.map((stop) => stop()));
    const builds = [...first.messages, ...second.messages].filter((message) => message === 'config snapshot not published').length;
    // Attempts at about 0, 1, 2 and 3 s; on every 50 ms tick it would be about 70.
    expect(builds).to.be.within(3, 5);
    expect((await state()).publish_failures).to.equal(builds);
    expect((await state()).active_version).to.equal(null);
  });

  it('raises one overview warning carrying the size and the limit, even once changes have waited over 5 minutes', async () => {
    await core.db.publishState.update({ where: { id: 1 }, data: { dirty_since: new Date(Date.now() - 10 * 60 * 1000) } });
    const warnings = await publishWarnings();
    expect(warnings.map((warning: Json) => warning.code)).to.deep.equal(['publish_failing']);
    const [warning] = warnings;
    expect(warning.severity).to.equal('critical');
    expect(warning.message).to.match(/^config publishing fails: snapshot of \d+ bytes exceeds CDN_EDGE_CONFIG_MAX_BYTES \(1024\); version none stays active; next attempt at /);
    expect(warning.detail.failures).to.be.at.least(3);
    expect(warning.detail.retry_at).to.be.a('number');
    expect(warning.detail.since).to.be.at.most(warning.detail.last_attempt_at);
  });

  it('publishes once the backoff has passed and the snapshot fits, and the warning goes away', async () => {
    const stop = startPublisher(core.db, core.core.connection.pool, loadConfig({ DATABASE_URL: core.databaseUrl }), DEFAULTS, pino({ level: 'silent' }), { timing: FAST_TICKS, backoff: ONE_SECOND });
    try {
      await eventually('a published snapshot', async () => ((await state()).active_version !== null ? true : undefined));
    } finally {
      await stop();
    }
    expect(await publishWarnings()).to.deep.equal([]);
    expect(await state()).to.include({ publish_failures: 0, retry_at: null, failing_since: null, last_error: null });
  });

  it('records a publish that throws as a failure with its reason and backs off from it, unless forced', async () => {
    await core.post('/api/v1/domains', { domain: 'broken-build.example' }, 201);
    const config = loadConfig({ DATABASE_URL: core.databaseUrl });
    const broken = { ...DEFAULTS, cache: undefined } as unknown as typeof DEFAULTS;
    const failure = await publishOnce(core.db, core.core.connection.pool, config, broken).catch((error: Error) => error);
    expect(failure).to.be.instanceOf(Error);
    expect(await state()).to.include({ publish_failures: 1, last_error: `publish failed: ${(failure as Error).message}` });
    expect((await publishOnce(core.db, core.core.connection.pool, config, DEFAULTS)).outcome).to.equal('backing_off');
    expect((await publishWarnings()).map((warning: Json) => warning.code)).to.deep.equal(['publish_failing']);
    expect((await publishOnce(core.db, core.core.connection.pool, config, DEFAULTS, { force: true })).outcome).to.be.oneOf(['published', 'unchanged']);
    expect(await publishWarnings()).to.deep.equal([]);
  });
});
