import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type acme from 'acme-client';
import { expect } from 'chai';
import { configureAcme } from '../../../src/features/ssl/acme/acme-connection.js';
import { createOrder } from '../../../src/features/ssl/acme/acme-order.js';
import { AcmeProblem } from '../../../src/features/ssl/acme/acme-problem.js';
import { certificateIdOf } from '../../../src/features/ssl/acme/renewal-info.js';
import { checkDueRenewalInfo, replacedCertificateId } from '../../../src/features/ssl/acme/renewal-info-checks.js';
import { queueDueRenewals } from '../../../src/features/ssl/ssl-scheduler.js';
import { TestCore, type Json } from '../../support/core.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';

// A CA that offers renewal information (RFC 9773) is asked again about each certificate as its
// Retry-After says, so a window it moves (to now, ahead of a revocation) is seen; a renewal names
// the certificate it replaces. Debian's pebble offers no renewalInfo, so a directory stands in for
// that part of the CA; the certificates and the scheduler's tables are real.
describe('ACME renewal information, asked again', function () {
  this.timeout(60000);
  let core: TestCore;
  let domain: Json;
  let chain: TestChain;
  let server: Server;
  let directory: string;
  let window: { start: string; end: string };
  let offered = true;
  let asked = 0;

  before(async () => {
    configureAcme('');
    chain = await makeTestChain(['www.checks.example']);
    server = createServer((req, res) => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (req.url === '/dir') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ newOrder: `${base}/order`, ...(offered ? { renewalInfo: `${base}/ari` } : {}) }));
      asked++;
      res.writeHead(200, { 'content-type': 'application/json', 'retry-after': '21600' }).end(JSON.stringify({ suggestedWindow: window }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    directory = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dir`;
    core = await TestCore.start();
    domain = await core.createDomain('checks.example');
    await core.post(`/api/v1/domains/${domain.id}/activate`, { override: true });
  });
  after(async () => {
    await core?.stop();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(async () => {
    await core.db.sslJob.deleteMany();
    await core.db.sslCertificate.deleteMany();
    offered = true;
    asked = 0;
  });

  const certificate = (renewAfter: Date, checkAfter: Date | null) =>
    core.db.sslCertificate.create({ data: { domain_id: domain.id, source: 'acme', status: 'active', hostnames: ['www.checks.example'], certificate_pem: chain.leaf, not_after: new Date(Date.now() + 30 * 86400_000), renew_after: renewAfter, renewal_info_check_after: checkAfter } });

  it('renews at once when the CA moves the window to the past, and asks again as its Retry-After says', async () => {
    const now = new Date();
    const row = await certificate(new Date(now.getTime() + 20 * 86400_000), new Date(now.getTime() - 1000));
    window = { start: new Date(now.getTime() - 2 * 3600_000).toISOString(), end: new Date(now.getTime() - 3600_000).toISOString() };
    expect(await checkDueRenewalInfo(core.core.connection.pool, directory, now)).to.equal(1);
    const checked = await core.db.sslCertificate.findUniqueOrThrow({ where: { id: row.id } });
    expect(checked.renew_after).to.deep.equal(now);
    expect(checked.renewal_info_check_after).to.deep.equal(new Date(now.getTime() + 21600_000));
    expect(await queueDueRenewals(core.core.connection.pool, now)).to.equal(1);
    expect(await checkDueRenewalInfo(core.core.connection.pool, directory, now), 'not due again before the Retry-After').to.equal(0);
    expect(asked).to.equal(1);
  });

  it('asks about each due certificate once however many cores check at once, and leaves certificates not due alone', async () => {
    const now = new Date();
    window = { start: new Date(now.getTime() + 86400_000).toISOString(), end: new Date(now.getTime() + 2 * 86400_000).toISOString() };
    for (let index = 0; index < 5; index++) await certificate(new Date(now.getTime() + 20 * 86400_000), new Date(now.getTime() - 1000));
    await certificate(new Date(now.getTime() + 20 * 86400_000), new Date(now.getTime() + 3600_000));
    await certificate(new Date(now.getTime() + 20 * 86400_000), null);
    const pool = core.core.connection.pool;
    const moved = await Promise.all([checkDueRenewalInfo(pool, directory, now), checkDueRenewalInfo(pool, directory, now), checkDueRenewalInfo(pool, directory, now)]);
    expect(moved.reduce((sum, count) => sum + count, 0)).to.equal(5);
    expect(asked).to.equal(5);
    const renewals = await core.db.sslCertificate.findMany({ where: { renewal_info_check_after: { gt: new Date(now.getTime() + 2 * 3600_000) } } });
    expect(renewals).to.have.length(5);
    for (const renewal of renewals) expect(renewal.renew_after!.getTime()).to.be.within(Date.parse(window.start), Date.parse(window.end));
  });

  it('stops asking when the CA no longer offers renewal information, keeping the renewal time', async () => {
    const now = new Date();
    const renewAfter = new Date(now.getTime() + 20 * 86400_000);
    const row = await certificate(renewAfter, new Date(now.getTime() - 1000));
    offered = false;
    expect(await checkDueRenewalInfo(core.core.connection.pool, directory, now)).to.equal(0);
    expect(await core.db.sslCertificate.findUniqueOrThrow({ where: { id: row.id } })).to.include({ renewal_info_check_after: null }).and.have.property('renew_after').that.deep.equals(renewAfter);
  });

  it('names the replaced certificate in a renewal order only for a CA that offers renewal information', async () => {
    const withInfo = await certificate(new Date(), new Date());
    const without = await certificate(new Date(), null);
    expect(await replacedCertificateId(core.core.connection.pool, withInfo.id)).to.equal(certificateIdOf(chain.leaf));
    expect(await replacedCertificateId(core.core.connection.pool, without.id)).to.equal(undefined);
  });

  it('orders with `replaces`, and again without it when the CA says the certificate was replaced already', async () => {
    const sent: unknown[] = [];
    const client = {
      createOrder: async (data: unknown) => {
        sent.push(data);
        if ((data as { replaces?: string }).replaces) throw new AcmeProblem('urn:ietf:params:acme:error:alreadyReplaced', 'already replaced');
        return {} as acme.Order;
      },
    };
    const request = { jobId: 'j', domainId: domain.id, hostnames: ['www.checks.example'], challenge: null, proxied: new Set<string>(), replaces: 'abc.def' };
    await createOrder(client, request);
    const identifiers = [{ type: 'dns', value: 'www.checks.example' }];
    expect(sent).to.deep.equal([{ identifiers, replaces: 'abc.def' }, { identifiers }]);
    sent.length = 0;
    await createOrder(client, { ...request, replaces: undefined });
    expect(sent).to.deep.equal([{ identifiers }]);
  });
});
