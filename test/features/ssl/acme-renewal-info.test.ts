import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { ariCertificateId, ariRenewalTime, authorityKeyIdentifier, serialBytes } from '../../../src/features/ssl/acme/renewal-info.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';

describe('ACME Renewal Information (RFC 9773)', function () {
  this.timeout(30000);
  let chain: TestChain;
  let server: Server;
  let base: string;
  let window: { start: string; end: string } | undefined;
  let asked: string[] = [];

  before(async () => {
    chain = await makeTestChain(['ari.example']);
    server = createServer((req, res) => {
      asked.push(req.url!);
      if (req.url === '/dir') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ newOrder: `${base}/order`, ...(window ? { renewalInfo: `${base}/renewal-info/` } : {}) }));
      if (req.url!.startsWith('/renewal-info/') && window) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ suggestedWindow: window }));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    asked = [];
  });

  it('builds the certificate identifier of the RFC\'s example', () => {
    expect(ariCertificateId(Buffer.from('69885B6B87464041E1B37B847BA0AE2CDE01C8D4', 'hex'), serialBytes('87654321'))).to.equal('aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE');
    expect(serialBytes('0102').toString('hex')).to.equal('0102');
  });

  it('reads the Authority Key Identifier openssl reads', () => {
    const stdout = execFileSync('openssl', ['x509', '-noout', '-ext', 'authorityKeyIdentifier'], { input: chain.leaf, encoding: 'utf8' });
    const expected = /([0-9A-F]{2}(?::[0-9A-F]{2})+)/.exec(stdout)![1].replace(/:/g, '').toLowerCase();
    expect(authorityKeyIdentifier(new X509Certificate(chain.leaf).raw)!.toString('hex')).to.equal(expected);
  });

  it('renews inside the window the CA suggests, asking for the certificate by its identifier', async () => {
    const now = new Date('2026-11-26T12:00:00Z');
    window = { start: '2026-12-01T00:00:00Z', end: '2026-12-02T00:00:00Z' };
    const at = await ariRenewalTime(`${base}/dir`, chain.leaf, now);
    expect(at!.getTime()).to.be.within(Date.parse(window.start), Date.parse(window.end));
    const leaf = new X509Certificate(chain.leaf);
    expect(asked[1]).to.equal(`/renewal-info/${ariCertificateId(authorityKeyIdentifier(leaf.raw)!, serialBytes(leaf.serialNumber))}`);
  });

  it('renews now when the window has passed', async () => {
    const now = new Date('2026-12-05T00:00:00Z');
    window = { start: '2026-12-01T00:00:00Z', end: '2026-12-02T00:00:00Z' };
    expect(await ariRenewalTime(`${base}/dir`, chain.leaf, now)).to.deep.equal(now);
  });

  it('gives nothing when the directory offers no renewalInfo (the two-thirds rule applies)', async () => {
    window = undefined;
    expect(await ariRenewalTime(`${base}/dir`, chain.leaf)).to.equal(undefined);
  });
});
