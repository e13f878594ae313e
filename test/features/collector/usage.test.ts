import { createHash, createHmac } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';
import { eventually } from '../../support/eventually.js';
import { startHousekeeping } from '../../../src/core/housekeeping.js';
import { loadConfig } from '../../../src/config/load.js';
import { ingestUsage } from '../../../src/features/collector/usage.js';
import { loadApiSchemas, validatorFor } from '../../../src/http/validation.js';

const EDGE_TOKEN = 'cdnedge_collector-tests-token-0123456789';

describe('usage ingest', () => {
  let core: TestCore;
  let domain: Json;
  const now = Math.floor(Date.now() / 1000);
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    domain = await core.createDomain('usage.example');
  });
  after(async () => {
    await core.stop();
  });

  const ingest = async (batch: object) => {
    const path = '/api/v1/collector/usage';
    const body = JSON.stringify(batch);
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'POST', pathWithQuery: path, body });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const event = (extra: object = {}) => ({ domain: 'www.usage.example', path: '/', status: 200, bytes: 1000, cache_status: 'HIT', timestamp: now - 10, client_country: 'DE', client_ip: '192.0.2.44', ...extra });
  const hourRequests = async () => Number((await core.db.usageAggregate.findMany({ where: { bucket: 'hour', domain_id: domain.id } })).reduce((sum, row) => sum + row.requests, 0n));

  it('stores valid events with the country and a hashed client IP, and updates every bucket', async () => {
    const answer = await ingest({ idempotency_key: 'batch-1', events: [event(), event({ cache_status: 'MISS', status: 503, bytes: 10 })] });
    expect(answer.status).to.equal(200);
    expect(answer.body.data).to.deep.include({ duplicate: false, accepted: 2, unknown_domain: 0, rejected: [] });
    const stored = await core.db.usageEvent.findMany({ where: { domain_id: domain.id } });
    expect(stored.map((row) => row.client_country)).to.deep.equal(['DE', 'DE']);
    const { value: key } = await core.db.installationSecret.findUniqueOrThrow({ where: { name: 'client_ip_hash_key' } });
    expect(stored[0].client_ip).to.equal(createHmac('sha256', Buffer.from(key, 'hex')).update('192.0.2.44').digest('hex'));
    expect(stored[0].client_ip).not.to.equal(createHash('sha256').update('192.0.2.44').digest('hex'));
    for (const bucket of ['minute', 'hour', 'day'] as const) {
      const [row] = await core.db.usageAggregate.findMany({ where: { bucket, domain_id: domain.id } });
      expect(row).to.deep.include({ requests: 2n, bytes: 1010n, cached_requests: 1n, cached_bytes: 1000n, status_2xx: 1n, status_5xx: 1n });
    }
  });

  it('counts a retried batch (same idempotency key) once', async () => {
    const before = await hourRequests();
    const retry = await ingest({ idempotency_key: 'batch-1', events: [event(), event()] });
    expect(retry.body.data).to.deep.include({ duplicate: true, accepted: 0 });
    expect(await hourRequests()).to.equal(before);
  });

  it('counts a batch sent 50 times at once (same idempotency key) once, events and aggregates alike', async () => {
    const before = await hourRequests();
    const storedBefore = await core.db.usageEvent.count({ where: { domain_id: domain.id } });
    const answers = await Promise.all(Array.from({ length: 50 }, () => ingest({ idempotency_key: 'batch-parallel', events: [event({ count: 7 })] })));
    expect(answers.map((answer) => answer.status)).to.deep.equal(Array(50).fill(200));
    expect(answers.filter((answer) => answer.body.data.duplicate === false).map((answer) => answer.body.data.accepted)).to.deep.equal([1]);
    expect(await hourRequests()).to.equal(before + 7);
    expect(await core.db.usageEvent.count({ where: { domain_id: domain.id } })).to.equal(storedBefore + 1);
  });

  it('rejects malformed events one by one and keeps the valid ones of the batch', async () => {
    const before = await hourRequests();
    const answer = await ingest({
      events: [event(), { ...event(), status: 42 }, { ...event(), client_ip: 'not-an-ip' }, { ...event(), timestamp: now + 3600 }, { path: '/' }, event({ domain: 'elsewhere.example' })],
    });
    expect(answer.status).to.equal(200);
    expect(answer.body.data.accepted).to.equal(2);
    expect(answer.body.data.unknown_domain).to.equal(1);
    expect(answer.body.data.rejected.map((rejection: Json) => [rejection.index, rejection.field])).to.deep.equal([[1, 'status'], [2, 'client_ip'], [3, 'timestamp'], [4, 'domain']]);
    expect(await hourRequests()).to.equal(before + 1);
  });

  it('stores an event with a status an origin passed on outside 100-599 and counts 600-999 as 5xx', async () => {
    const other = await core.createDomain('odd-status.example');
    const answer = await ingest({ events: [event({ domain: 'odd-status.example', status: 999 }), event({ domain: 'odd-status.example', status: 600 }), event({ domain: 'odd-status.example', status: 1000 }), event({ domain: 'odd-status.example', status: 99 })] });
    expect(answer.body.data.accepted).to.equal(2);
    expect(answer.body.data.rejected.map((rejection: Json) => [rejection.index, rejection.field])).to.deep.equal([[2, 'status'], [3, 'status']]);
    const [row] = await core.db.usageAggregate.findMany({ where: { bucket: 'hour', domain_id: other.id } });
    expect(row).to.deep.include({ requests: 2n, status_2xx: 0n, status_5xx: 2n });
  });

  it('counts an event with a count as that many requests in every bucket and status class, and an event without one as one', async () => {
    const bulk = await core.createDomain('bulk.example');
    const answer = await ingest({ events: [event({ domain: 'bulk.example', path: '/many', count: 250, bytes: 25000 }), event({ domain: 'bulk.example', path: '/many', status: 503, cache_status: 'MISS', count: 7, bytes: 70 }), event({ domain: 'bulk.example', path: '/one' })] });
    expect(answer.body.data).to.deep.include({ accepted: 3, rejected: [] });
    for (const bucket of ['minute', 'hour', 'day'] as const) {
      const [row] = await core.db.usageAggregate.findMany({ where: { bucket, domain_id: bulk.id } });
      expect(row, bucket).to.deep.include({ requests: 258n, bytes: 26070n, cached_requests: 251n, cached_bytes: 26000n, status_2xx: 251n, status_5xx: 7n });
    }
    const rows = await core.db.usageEvent.findMany({ where: { domain_id: bulk.id }, orderBy: { id: 'asc' } });
    expect(rows.map((row) => row.count)).to.deep.equal([250, 7, 1]);
  });

  it('refuses a count of 0, a negative, a fraction, a string or one above 1e9, and keeps the rest of the batch', async () => {
    const before = await hourRequests();
    const counts = [0, -3, 1.5, '2', 1_000_000_001];
    const answer = await ingest({ events: [...counts.map((count) => event({ count })), event({ count: 1_000_000_000 })] });
    expect(answer.status).to.equal(200);
    expect(answer.body.data.accepted).to.equal(1);
    expect(answer.body.data.rejected.map((rejection: Json) => [rejection.index, rejection.field])).to.deep.equal(counts.map((_, index) => [index, 'count']));
    expect(await hourRequests()).to.equal(before + 1_000_000_000);
  });

  it('refuses an event holding text the database cannot store on its own and keeps the rest of the batch', async () => {
    const before = await hourRequests();
    const answer = await ingest({ events: [event({ path: '/a\u0000b' }), event(), event({ cache_status: 'HIT', path: '/\ud800' })] });
    expect(answer.status).to.equal(200);
    expect(answer.body.data.accepted).to.equal(1);
    expect(answer.body.data.rejected.map((rejection: Json) => [rejection.index, rejection.field])).to.deep.equal([[0, 'path'], [2, 'path']]);
    expect(await hourRequests()).to.equal(before + 1);
  });

  it('refuses a batch nested deeper than 64 levels with 400', async () => {
    const deep = `{"events":[${'['.repeat(70)}${']'.repeat(70)}]}`;
    const path = '/api/v1/collector/usage';
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'POST', pathWithQuery: path, body: deep });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: deep });
    expect(response.status).to.equal(400);
  });

  it('answers 422 to a batch without events and 401 without a signature', async () => {
    expect((await ingest({ idempotency_key: 'x' })).status).to.equal(422);
    expect((await fetch(`${core.url}/api/v1/collector/usage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"events":[]}' })).status).to.equal(401);
  });

  it('forgets idempotency keys after CDN_INGEST_KEY_RETENTION_DAYS, in the background housekeeping', async () => {
    await core.db.ingestKey.create({ data: { stream: 'usage', key: 'old-batch', edge_id: 'edge-1', created_at: new Date(Date.now() - 8 * 86400000) } });
    await core.db.ingestKey.create({ data: { stream: 'usage', key: 'recent-batch', edge_id: 'edge-1', created_at: new Date(Date.now() - 6 * 86400000) } });
    const config = loadConfig({ DATABASE_URL: core.databaseUrl, CDN_INGEST_KEY_RETENTION_DAYS: '7' });
    const stop = startHousekeeping(core.core.connection, config, pino({ level: 'silent' }), { intervalMs: 20 });
    try {
      await eventually('the old key pruned', async () => ((await core.db.ingestKey.count({ where: { key: 'old-batch' } })) === 0 ? true : undefined));
    } finally {
      await stop();
    }
    expect(await core.db.ingestKey.count({ where: { key: 'recent-batch' } })).to.equal(1);
    expect((await ingest({ idempotency_key: 'old-batch', events: [event()] })).body.data).to.deep.include({ duplicate: false, accepted: 1 });
  });

  it('stores the full client IP only when CDN_STORE_FULL_CLIENT_IP says so', async () => {
    const validate = validatorFor(loadApiSchemas(), 'usage-event');
    await ingestUsage(core.core.connection.pool, { events: [event({ client_ip: '2001:db8::77', path: '/full-ip' })] }, 'edge-1', { validate, clientIp: { storeFull: true, key: Buffer.alloc(32) }, maxSkewSeconds: 300, retentionDays: 30 });
    const row = await core.db.usageEvent.findFirstOrThrow({ where: { path: '/full-ip' } });
    expect(row.client_ip).to.equal('2001:db8::77');
  });
});
