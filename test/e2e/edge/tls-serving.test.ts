import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import tls from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';
import { sendRaw } from '../../support/raw-socket.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';
import { handshake, httpsRequest } from '../../support/tls-client.js';

const TOKEN = 'cdnedge_e2e-tls-serving-token-0123456789abcdef';
const ALERT = /^ERR_SSL_.*ALERT/;

// A real core with manual certificates uploaded through the API, a real `cdn edge` with two workers.
describe('cdn edge serves TLS on CDN_EDGE_HTTPS_PORT', function () {
  this.timeout(90000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let dataDir: string;
  let com: Json;
  let net: Json;
  let comChain: TestChain;
  let netChain: TestChain;

  const upload = (domain: Json, chain: TestChain) =>
    core.post(`/api/v1/domains/${domain.id}/ssl/manual-certificate`, { certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate + chain.root });
  const keyBodies = () => [comChain.leafKey, netChain.leafKey].map((pem) => pem.split('\n')[1]);
  const tlsPort = () => edge.httpsPort;

  // A TLS 1.2 connection (resuming `session` when given) sending one GET for `host`: what came back before the edge closed it.
  function resumable(options: { servername: string; host: string; session?: Buffer; version?: tls.SecureVersion }): Promise<{ answer: string; reused: boolean; session: Buffer | undefined }> {
    return new Promise((resolve) => {
      let answer = '';
      let session: Buffer | undefined;
      const socket = tls.connect({ host: '127.0.0.1', port: tlsPort(), servername: options.servername, session: options.session, rejectUnauthorized: false, minVersion: options.version, maxVersion: options.version ?? 'TLSv1.2' });
      socket.on('session', (ticket: Buffer) => (session = ticket));
      let reused = false;
      socket.once('secureConnect', () => {
        reused = socket.isSessionReused();
        socket.write(`GET /resumed HTTP/1.1\r\nHost: ${options.host}\r\nConnection: close\r\n\r\n`);
      });
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ answer, reused, session }));
    });
  }

  // Raw bytes over TLS with SNI `servername` (certificate checks off: the bytes are the test): what came back before the close.
  function rawTls(port: number, servername: string, bytes: string): Promise<string> {
    return new Promise((resolve) => {
      let answer = '';
      const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => socket.write(bytes));
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(answer));
    });
  }

  async function republish(): Promise<void> {
    await edge.waitReady(await publish(core));
  }

  before(async () => {
    [comChain, netChain] = await Promise.all([makeTestChain(['example.com', 'www.example.com']), makeTestChain(['example.net', '*.example.net'])]);
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN, CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64'), CDN_CONFIG_SNAPSHOT_HISTORY_ENABLED: 'true' });
    origin = await TestOrigin.start('tls', (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end(`proto=${req.headers['x-forwarded-proto']} ${req.url}\n`);
    });
    com = await createSite(core, 'example.com', origin.port);
    net = await createSite(core, 'example.net', origin.port);
    await upload(com, comChain);
    await upload(net, netChain);
    await publish(core);
    dataDir = await mkdtemp(path.join(tmpdir(), 'cdn-edge-tls-'));
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, dataDir, env: { CDN_LOG_LEVEL: 'debug' } });
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await core?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('presents the certificate of the exact SNI name, verified against its root, with TLS 1.3 and ALPN http/1.1', async () => {
    const result = await handshake({ port: tlsPort(), servername: 'www.example.com', ca: comChain.root });
    expect(result.ok, JSON.stringify(result)).to.equal(true);
    if (!result.ok) return;
    expect(result.protocol).to.equal('TLSv1.3');
    expect(result.alpn).to.equal('http/1.1');
    expect(result.certificate.subjectaltname).to.equal('DNS:example.com, DNS:www.example.com');
    expect((await edge.waitReady()).tls).to.deep.equal({ names: 4, certificates_without_key: [], certificates_unusable: [] });
  });

  it('answers a name one label under a wildcard with the wildcard certificate, and nothing deeper', async () => {
    const wildcard = await handshake({ port: tlsPort(), servername: 'www.example.net', ca: netChain.root });
    expect(wildcard.ok, JSON.stringify(wildcard)).to.equal(true);
    const deeper = await handshake({ port: tlsPort(), servername: 'a.www.example.net' });
    expect(deeper.ok).to.equal(false);
    if (!deeper.ok) expect(deeper.code).to.match(ALERT);
  });

  it('fails the handshake with an alert for a name without a certificate, or without SNI, never showing another domain\'s certificate', async () => {
    for (const servername of ['unknown.example.org', 'example.org', undefined]) {
      const result = await handshake({ port: tlsPort(), servername });
      expect(result.ok, `${servername}: ${JSON.stringify(result)}`).to.equal(false);
      if (!result.ok) expect(result.code, String(servername)).to.match(ALERT);
    }
  });

  it('runs the same pipeline behind TLS, telling the origin X-Forwarded-Proto https', async () => {
    const secure = await httpsRequest({ port: tlsPort(), host: 'www.example.com', path: '/secure', ca: comChain.root });
    expect(secure.status).to.equal(200);
    expect(secure.text).to.equal('proto=https /secure\n');
    const plain = await edge.request('www.example.com', '/plain');
    expect(plain.text).to.equal('proto=http /plain\n');
  });

  it('answers 421 to a request whose host the connection\'s certificate does not cover', async () => {
    const misdirected = await httpsRequest({ port: tlsPort(), host: 'www.example.com', hostHeader: 'www.example.net', path: '/other', ca: comChain.root });
    expect(misdirected.status).to.equal(421);
    expect(origin.count('/other')).to.equal(0);
    const covered = await httpsRequest({ port: tlsPort(), host: 'www.example.com', hostHeader: 'example.com', path: '/apex', ca: comChain.root });
    expect(covered.status).to.equal(200);
  });

  it('refuses a protocol below the domain\'s min_tls_version with an alert, per domain', async () => {
    await core.patch(`/api/v1/domains/${net.id}/ssl/settings`, { min_tls_version: '1.3' });
    await republish();
    const old = await handshake({ port: tlsPort(), servername: 'www.example.net', maxVersion: 'TLSv1.2' });
    expect(old.ok).to.equal(false);
    if (!old.ok) expect(old.code).to.match(ALERT);
    expect((await handshake({ port: tlsPort(), servername: 'www.example.net', ca: netChain.root })).ok).to.equal(true);
    const other = await handshake({ port: tlsPort(), servername: 'www.example.com', ca: comChain.root, maxVersion: 'TLSv1.2' });
    expect(other.ok && other.protocol).to.equal('TLSv1.2');
  });

  it('holds a session resumed under another name to that name\'s minimum TLS version', async () => {
    const first = await resumable({ servername: 'www.example.com', host: 'www.example.com' });
    expect(first.answer).to.match(/^HTTP\/1\.1 200/);
    const reused = { same: 0, other: 0 };
    // Each worker has its own ticket keys: a connection another worker takes gets a full handshake.
    for (let attempt = 0; attempt < 4; attempt++) {
      const same = await resumable({ servername: 'www.example.com', host: 'www.example.com', session: first.session });
      if (same.reused) reused.same++;
      expect(same.answer, `same name, attempt ${attempt}`).to.match(/^HTTP\/1\.1 200/);
      const other = await resumable({ servername: 'www.example.net', host: 'www.example.net', session: first.session });
      if (other.reused) reused.other++;
      expect(other.answer, `other name, attempt ${attempt}`).to.not.match(/^HTTP\/1\.1 200/);
      if (other.reused) expect(other.answer).to.match(/^HTTP\/1\.1 421/);
    }
    expect(reused.same, 'sessions resumed under their own name').to.be.above(0);
    expect(reused.other, 'sessions resumed under another name').to.be.above(0);
  });

  it('closes a TLS 1.3 session resumed under a name without a certificate before reading a request', async () => {
    const first = await resumable({ servername: 'www.example.com', host: 'www.example.com', version: 'TLSv1.3' });
    expect(first.answer).to.match(/^HTTP\/1\.1 200/);
    let reused = 0;
    for (let attempt = 0; attempt < 4; attempt++) {
      const other = await resumable({ servername: 'unknown.example.org', host: 'unknown.example.org', session: first.session, version: 'TLSv1.3' });
      if (other.reused) reused++;
      expect(other.answer, `attempt ${attempt}`).to.equal('');
    }
    expect(reused, 'sessions resumed').to.be.above(0);
  });

  it('redirects plain requests with always_https (ACME challenges excepted) and sends HSTS over HTTPS only', async () => {
    await core.patch(`/api/v1/domains/${com.id}/ssl/settings`, { always_https: true, hsts_enabled: true, hsts_max_age: 600 });
    await republish();
    const plain = await edge.request('www.example.com', '/page?a=1');
    expect(plain.status).to.equal(301);
    expect(plain.headers.location).to.equal('https://www.example.com/page?a=1');
    expect(plain.headers).to.not.have.property('strict-transport-security');
    // The edge answers challenge paths itself over plain HTTP (docs/ssl.md, HTTP-01): no redirect, and an unknown token is 404.
    const challenge = await edge.request('www.example.com', '/.well-known/acme-challenge/token-1');
    expect(challenge.status).to.equal(404);
    expect(challenge.headers).to.not.have.property('location');
    expect(challenge.headers).to.not.have.property('strict-transport-security');
    const secure = await httpsRequest({ port: tlsPort(), host: 'www.example.com', path: '/page', ca: comChain.root });
    expect(secure.status).to.equal(200);
    expect(secure.headers['strict-transport-security']).to.equal('max-age=600');
    const other = await httpsRequest({ port: tlsPort(), host: 'www.example.net', path: '/page', ca: netChain.root });
    expect(other.headers).to.not.have.property('strict-transport-security');
  });

  // The same always_https domain through raw sockets: every decision reads the door's one view of the request.
  it('decides always_https, the challenge path and the scheme from the normalised request, whatever the spelling (raw sockets)', async () => {
    const plain = (head: string) => sendRaw(edge.port, `${head}\r\n\r\n`);
    const location = (text: string) => /\r\nlocation: ([^\r]*)/i.exec(text)?.[1];
    // Host in capitals, with a trailing dot and a port: the redirect names the normalised host and path.
    const odd = await plain('GET //page/./x/../y?a=1 HTTP/1.1\r\nHost: WWW.Example.COM.:80');
    expect([odd.status, location(odd.text)]).to.deep.equal([301, 'https://www.example.com/page/y?a=1']);
    // An absolute-form https target over a plain connection is still plain: the scheme is the socket's.
    const absolute = await plain('GET https://www.example.com/page HTTP/1.1\r\nHost: www.example.net');
    expect([absolute.status, location(absolute.text)]).to.deep.equal([301, 'https://www.example.com/page']);
    // The client's own claims of https, also as a hop-by-hop header, change nothing.
    const claimed = await plain('GET /page HTTP/1.1\r\nHost: www.example.com\r\nX-Forwarded-Proto: https\r\nForwarded: proto=https\r\nConnection: keep-alive, X-Forwarded-Proto');
    expect(claimed.status).to.equal(301);
    // Spellings of the challenge path are the challenge path: answered by the edge, never redirected or proxied.
    for (const target of ['/.well-known/%61cme-challenge/token-2', '//.well-known/./acme-challenge/token-2', '/.well-known/x/../acme-challenge/token-2', '/.well-known/acme-challenge/token-2?a=1']) {
      const answer = await plain(`GET ${target} HTTP/1.1\r\nHost: WWW.EXAMPLE.COM.`);
      expect([answer.status, location(answer.text), answer.text.includes('no such ACME challenge')], target).to.deep.equal([404, undefined, true]);
    }
    // Paths are case-sensitive (RFC 3986): another path, so the redirect applies.
    expect((await plain('GET /.WELL-KNOWN/acme-challenge/token-2 HTTP/1.1\r\nHost: www.example.com')).status).to.equal(301);
    // Over TLS the Host is read normalised too: served for its certificate's name however spelled, 421 for another domain's.
    const overTls = (host: string) => rawTls(tlsPort(), 'www.example.com', `GET /raw HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(await overTls('WWW.EXAMPLE.COM.:443')).to.match(/^HTTP\/1\.1 200[^]*proto=https \/raw/);
    expect(await overTls('www.example.net')).to.match(/^HTTP\/1\.1 421/);
  });

  it('serves a replaced certificate to new handshakes without dropping an open keep-alive connection', async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await httpsRequest({ port: tlsPort(), host: 'www.example.com', path: '/keep/1', ca: comChain.root, agent });
      const before = await handshake({ port: tlsPort(), servername: 'www.example.com', ca: comChain.root });
      comChain = await makeTestChain(['example.com', 'www.example.com']);
      await upload(com, comChain);
      await republish();
      const second = await httpsRequest({ port: tlsPort(), host: 'www.example.com', path: '/keep/2', ca: comChain.root, agent });
      expect(second.status).to.equal(200);
      expect(second.localPort, 'the same connection').to.equal(first.localPort);
      const after = await handshake({ port: tlsPort(), servername: 'www.example.com', ca: comChain.root });
      expect(after.ok, JSON.stringify(after)).to.equal(true);
      if (before.ok && after.ok) expect(after.certificate.serialNumber).to.not.equal(before.certificate.serialNumber);
    } finally {
      agent.destroy();
    }
  });

  it('serves a domain whose SSL mode is off over plain HTTP only, without redirecting', async () => {
    await core.patch(`/api/v1/domains/${com.id}/ssl/settings`, { mode: 'off' });
    await republish();
    expect((await edge.request('www.example.com', '/off')).status).to.equal(200);
    const refused = await handshake({ port: tlsPort(), servername: 'www.example.com' });
    expect(refused.ok).to.equal(false);
    if (!refused.ok) expect(refused.code).to.match(ALERT);
    await core.patch(`/api/v1/domains/${com.id}/ssl/settings`, { mode: 'full' });
    await republish();
    expect((await handshake({ port: tlsPort(), servername: 'www.example.com', ca: comChain.root })).ok).to.equal(true);
  });

  it('never shows a private key in the snapshot, its history, the edge\'s disk or logs, or the API', async () => {
    const version = (await core.get('/api/v1/config/snapshots')).data[0].version;
    const texts: Record<string, string> = {
      history: JSON.stringify(await core.get(`/api/v1/config/snapshots/${version}`)),
      ssl: JSON.stringify(await core.get(`/api/v1/domains/${com.id}/ssl`)),
      certificates: JSON.stringify(await core.get(`/api/v1/domains/${com.id}/ssl/certificates`)),
      disk: await readFile(path.join(dataDir, 'tls', 'certificate-keys.json'), 'utf8'),
      snapshotOnDisk: await readFile(path.join(dataDir, 'snapshot', 'last-known-good.json'), 'utf8'),
      edgeLog: edge.output,
    };
    for (const [where, text] of Object.entries(texts)) {
      expect(text, where).to.not.match(/PRIVATE KEY/);
      for (const body of keyBodies()) expect(text, where).to.not.include(body);
    }
  });

  it('still serves TLS from its disk copy after a restart while the core is down', async () => {
    await edge.stop({ keepData: true });
    await core.stop();
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN, dataDir });
    const result = await handshake({ port: edge.httpsPort, servername: 'www.example.com', ca: comChain.root });
    expect(result.ok, JSON.stringify(result)).to.equal(true);
    core = undefined as unknown as TestCore;
  });
});
