import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { configureAcme } from '../../../src/features/ssl/acme/acme-connection.js';
import { ariCertificateId, authorityKeyIdentifier, certificateIdOf, checkRenewalInfo, serialBytes } from '../../../src/features/ssl/acme/renewal-info.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';

describe('ACME Renewal Information (RFC 9773)', function () {
  this.timeout(30000);
  let chain: TestChain;
  let server: Server;
  let base: string;
  let window: { start: string; end: string } | undefined;
  let retryAfter: string | undefined;
  let failing = false;
  let asked: string[] = [];

  before(async () => {
    configureAcme('');
    chain = await makeTestChain(['ari.example']);
    server = createServer((req, res) => {
      asked.push(req.url!);
      if (req.url === '/dir') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ newOrder: `${base}/order`, ...(window ? { renewalInfo: `${base}/renewal-info/` } : {}) }));
      if (req.url!.startsWith('/renewal-info/') && failing) return void res.writeHead(500).end();
      if (req.url!.startsWith('/renewal-info/') && window) return void res.writeHead(200, { 'content-type': 'application/json', ...(retryAfter ? { 'retry-after': retryAfter } : {}) }).end(JSON.stringify({ suggestedWindow: window }));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    asked = [];
    retryAfter = undefined;
    failing = false;
  });
  const hours = (from: Date, to: Date | undefined) => (to!.getTime() - from.getTime()) / 3600_000;

  it('builds the certificate identifier of the RFC\'s example', () => {
    expect(ariCertificateId(Buffer.from('69885B6B87464041E1B37B847BA0AE2CDE01C8D4', 'hex'), serialBytes('87654321'))).to.equal('aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE');
    expect(serialBytes('0102').toString('hex')).to.equal('0102');
  });

  it('reads the Authority Key Identifier openssl reads', () => {
    const stdout = execFileSync('openssl', ['x509', '-noout', '-ext', 'authorityKeyIdentifier'], { input: chain.leaf, encoding: 'utf8' });
    const expected = /([0-9A-F]{2}(?::[0-9A-F]{2})+)/.exec(stdout)![1].replace(/:/g, '').toLowerCase();
    expect(authorityKeyIdentifier(new X509Certificate(chain.leaf).raw)!.toString('hex')).to.equal(expected);
  });

  it('renews inside the window the CA suggests, asking for the certificate by its identifier, and again after six hours when it sets no Retry-After', async () => {
    const now = new Date('2026-11-26T12:00:00Z');
    window = { start: '2026-12-01T00:00:00Z', end: '2026-12-02T00:00:00Z' };
    const check = await checkRenewalInfo(`${base}/dir`, chain.leaf, now);
    if (!check.offered) throw new Error('the CA offers renewal information');
    expect(check.renewAt!.getTime()).to.be.within(Date.parse(window.start), Date.parse(window.end));
    expect(hours(now, check.checkAgainAt)).to.equal(6);
    const leaf = new X509Certificate(chain.leaf);
    expect(asked[1]).to.equal(`/renewal-info/${ariCertificateId(authorityKeyIdentifier(leaf.raw)!, serialBytes(leaf.serialNumber))}`);
  });

  it('asks again when the Retry-After says, held between a minute and a day', async () => {
    const now = new Date('2026-11-26T12:00:00Z');
    window = { start: '2026-12-01T00:00:00Z', end: '2026-12-02T00:00:00Z' };
    const after = async (header: string) => {
      retryAfter = header;
      const check = await checkRenewalInfo(`${base}/dir`, chain.leaf, now);
      return check.offered ? (check.checkAgainAt.getTime() - now.getTime()) / 1000 : undefined;
    };
    expect(await after('7200')).to.equal(7200);
    expect(await after('5')).to.equal(60);
    expect(await after('9999999')).to.equal(86400);
    expect(await after('Thu, 26 Nov 2026 15:00:00 GMT')).to.equal(3 * 3600);
  });

  it('keeps a renewal time already chosen while it lies in the window, and moves it when the window moves', async () => {
    const now = new Date('2026-11-26T12:00:00Z');
    window = { start: '2026-12-01T00:00:00Z', end: '2026-12-02T00:00:00Z' };
    const chosen = new Date('2026-12-01T06:00:00Z');
    const kept = await checkRenewalInfo(`${base}/dir`, chain.leaf, now, chosen);
    expect(kept.offered && kept.renewAt).to.deep.equal(chosen);
    window = { start: '2026-11-20T00:00:00Z', end: '2026-11-21T00:00:00Z' };
    const moved = await checkRenewalInfo(`${base}/dir`, chain.leaf, now, chosen);
    expect(moved.offered && moved.renewAt, 'a window already passed (a revocation ahead): renew now').to.deep.equal(now);
  });

  it('treats a window that ends before it starts, or a failed answer, as no answer: asked again in an hour, the renewal time left alone', async () => {
    const now = new Date('2026-11-26T12:00:00Z');
    window = { start: '2026-12-02T00:00:00Z', end: '2026-12-02T00:00:00Z' };
    const empty = await checkRenewalInfo(`${base}/dir`, chain.leaf, now);
    expect(empty).to.deep.equal({ offered: true, checkAgainAt: new Date('2026-11-26T13:00:00Z') });
    failing = true;
    expect(await checkRenewalInfo(`${base}/dir`, chain.leaf, now)).to.deep.equal({ offered: true, checkAgainAt: new Date('2026-11-26T13:00:00Z') });
  });

  it('finds no identifier in text that is not a certificate, and then asks nothing', async () => {
    expect(certificateIdOf('not a certificate')).to.equal(undefined);
    expect(await checkRenewalInfo(`${base}/dir`, 'not a certificate')).to.deep.equal({ offered: false });
  });

  it('says the CA offers nothing when its directory has no renewalInfo (the two-thirds rule applies)', async () => {
    window = undefined;
    expect(await checkRenewalInfo(`${base}/dir`, chain.leaf)).to.deep.equal({ offered: false });
  });
});
