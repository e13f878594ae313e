import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { secretBoxOf } from '../../../src/features/ssl/key-storage.js';
import { schedulerRound } from '../../../src/features/ssl/ssl-scheduler.js';
import { TestCore, type Json } from '../../support/core.js';

// A CA that answers every account registration with RFC 8555's rateLimited problem and a
// Retry-After: the scheduler must wait what it asks, without counting the attempt.
describe('a CA rate limit', function () {
  this.timeout(30000);
  let ca: Server;
  let directoryUrl: string;
  let core: TestCore;
  let domain: Json;
  const secretKey = randomBytes(32).toString('base64');

  before(async () => {
    ca = createServer((req, res) => {
      const base = `http://127.0.0.1:${(ca.address() as AddressInfo).port}`;
      if (req.url === '/dir') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ newNonce: `${base}/nonce`, newAccount: `${base}/account`, newOrder: `${base}/order` }));
      if (req.url === '/nonce') return void res.writeHead(200, { 'replay-nonce': randomBytes(8).toString('hex'), 'cache-control': 'no-store' }).end();
      req.resume();
      res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '1800', 'replay-nonce': randomBytes(8).toString('hex') }).end(JSON.stringify({ type: 'urn:ietf:params:acme:error:rateLimited', detail: 'too many new accounts from this address' }));
    });
    await new Promise<void>((resolve) => ca.listen(0, '127.0.0.1', resolve));
    directoryUrl = `http://127.0.0.1:${(ca.address() as AddressInfo).port}/dir`;
    core = await TestCore.start({ CDN_SSL_SECRET_KEY: secretKey });
    domain = await core.createDomain('limited.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
  });
  after(async () => {
    await core?.stop();
    await new Promise((resolve) => ca.close(resolve));
  });

  it('queues the job again after the Retry-After, the attempt given back, and logs no key', async () => {
    const { data: job } = await core.post(`/api/v1/domains/${domain.id}/ssl/request`, { challenge: 'dns-01' }, 200);
    const config = loadConfig({ DATABASE_URL: core.databaseUrl, CDN_SSL_SECRET_KEY: secretKey, CDN_SSL_ACME_DIRECTORY_URL: directoryUrl });
    let logged = '';
    const logger = pino({ level: 'debug' }, new Writable({ write: (chunk, _encoding, done) => ((logged += chunk.toString()), done()) }));
    const started = Date.now();
    await schedulerRound({ db: core.db, pool: core.core.connection.pool, config, box: secretBoxOf(config), logger, coreId: 'test-core' });
    const row = await core.db.sslJob.findUniqueOrThrow({ where: { id: job.id } });
    expect(row).to.include({ status: 'queued', attempts: 0, locked_by: null });
    expect(row.last_error).to.equal('too many new accounts from this address (urn:ietf:params:acme:error:rateLimited)');
    expect(row.run_after.getTime() - started).to.be.within(1800000 - 5000, 1800000 + 5000);
    expect(logged).to.include('retried later');
    expect(logged).not.to.match(/PRIVATE KEY|cdnbox1\./);
    const account = await core.db.acmeAccount.findUniqueOrThrow({ where: { directory_url: directoryUrl } });
    expect(account.last_error).to.include('rateLimited');
  });

  it('cancels a job whose domain is not active when it is claimed', async () => {
    const pending = await core.createDomain('pending.example');
    const { data: job } = await core.post(`/api/v1/domains/${pending.id}/ssl/request`, {}, 200);
    const config = loadConfig({ DATABASE_URL: core.databaseUrl, CDN_SSL_SECRET_KEY: secretKey, CDN_SSL_ACME_DIRECTORY_URL: directoryUrl });
    await schedulerRound({ db: core.db, pool: core.core.connection.pool, config, box: secretBoxOf(config), logger: pino({ level: 'silent' }), coreId: 'test-core' });
    const row = await core.db.sslJob.findUniqueOrThrow({ where: { id: job.id } });
    expect(row).to.include({ status: 'cancelled', attempts: 1 });
    expect(row.last_error).to.include('the domain is pending_nameserver');
    await core.db.sslJob.delete({ where: { id: job.id } });
  });

  it('shows the waiting job in readiness, not yet due so without lag', async () => {
    const { ssl_jobs } = await core.get('/api/v1/readiness');
    expect(ssl_jobs).to.deep.include({ acme: 'not configured: set CDN_SSL_ACME_DIRECTORY_URL', queued: 1, running: 0, lag_seconds: 0, last_failure: null });
  });
});
