import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../../src/config/load.js';
import { resealEarlierKeys } from '../../../src/features/ssl/key-rotation.js';
import { privateKeyContext, secretBoxOf } from '../../../src/features/ssl/key-storage.js';
import { TestCore, type Json } from '../../support/core.js';
import { makeTestChain, type TestChain } from '../../support/test-certificates.js';

const SECRET_KEY = randomBytes(32).toString('base64');
const KEY_LINE = /PRIVATE KEY/;

describe('manual certificates', function () {
  this.timeout(60000);
  let core: TestCore;
  let chain: TestChain;
  let domain: Json;
  const upload = (changes: Json = {}) => ({ certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate, ...changes });
  const certificatesPath = () => `/api/v1/domains/${domain.id}/ssl/manual-certificate`;
  const keyBody = () => chain.leafKey.split('\n')[1];

  before(async () => {
    chain = await makeTestChain(['manual.example', '*.manual.example']);
    core = await TestCore.start({ CDN_SSL_SECRET_KEY: SECRET_KEY });
    domain = await core.createDomain('manual.example');
    await core.post(`/api/v1/domains/${domain.id}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.10', proxied: true }, 201);
  });
  after(async () => {
    await core?.stop();
  });

  it('stores a checked certificate, shows its facts and never its key', async () => {
    const stored = (await core.post(certificatesPath(), upload(), 200)).data;
    expect(stored).to.include({ source: 'manual', status: 'active', issuer: 'CN=CDN Test Intermediate' });
    expect(stored.hostnames).to.deep.equal(['manual.example', '*.manual.example']);
    expect(stored.serial).to.match(/^[0-9A-F]+$/);
    expect(stored.not_after - stored.not_before).to.be.closeTo(30 * 86400, 86400);
    const listed = (await core.get(`/api/v1/domains/${domain.id}/ssl/certificates`)).data;
    expect(listed[0]).to.deep.equal(stored);
    expect((await core.get(`/api/v1/domains/${domain.id}/ssl`)).data.certificates[0]).to.deep.equal(stored);
    for (const path of [`/api/v1/domains/${domain.id}/ssl`, `/api/v1/domains/${domain.id}/ssl/certificates`, '/api/v1/audit', '/api/v1/export/domains']) {
      const text = await (await fetch(`${core.url}${path}`)).text();
      expect(text, path).to.not.match(KEY_LINE);
      expect(text, path).to.not.include(keyBody());
    }
    const audit = (await core.get('/api/v1/audit')).data.find((event: Json) => event.action === 'ssl_certificate.upload');
    expect(audit.target_id).to.equal(stored.id);
    expect(audit.detail.body.private_key).to.equal('[redacted]');
  });

  it('says in readiness which key seals, and raises no key-storage warning', async () => {
    const keyId = secretBoxOf(loadConfig({ CDN_SSL_SECRET_KEY: SECRET_KEY }))!.keyId;
    expect((await core.get('/api/v1/readiness')).ssl).to.deep.equal({ key_storage: 'configured', key_id: keyId });
    const codes = (await core.get('/api/v1/overview/warnings')).data.warnings.map((item: Json) => item.code);
    expect(codes).to.not.include('ssl_key_storage_not_configured');
  });

  it('keeps the key sealed with CDN_SSL_SECRET_KEY, bound to its certificate', async () => {
    const row = await core.db.sslCertificate.findFirstOrThrow({ where: { domain_id: domain.id, status: 'active' } });
    expect(row.private_key_encrypted).to.match(/^cdnbox1\./).and.not.match(KEY_LINE);
    const box = secretBoxOf(loadConfig({ CDN_SSL_SECRET_KEY: SECRET_KEY }))!;
    expect(box.open(row.private_key_encrypted!, privateKeyContext(row.id)).toString()).to.equal(chain.leafKey);
  });

  it('replaces the active manual certificate, keeping exactly one active when 50 uploads race', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${core.url}${certificatesPath()}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(upload()) })));
    expect(answers.map((answer) => answer.status)).to.deep.equal(Array(50).fill(200));
    const statuses = (await core.get(`/api/v1/domains/${domain.id}/ssl/certificates?limit=100`)).data.map((certificate: Json) => certificate.status);
    expect((await core.get(`/api/v1/domains/${domain.id}/ssl`)).data.certificates.map((certificate: Json) => certificate.status)).to.deep.equal(['active']);
    expect(statuses.filter((status: string) => status === 'active')).to.have.length(1);
    expect(statuses.filter((status: string) => status === 'replaced')).to.have.length(50);
  });

  it('refuses every bad upload with 422 naming the field, storing nothing', async () => {
    const other = await makeTestChain(['elsewhere.example']);
    const before = await core.db.sslCertificate.count();
    const cases: [Json, string, RegExp][] = [
      [upload({ certificate: 'not pem' }), 'certificate', /no PEM CERTIFICATE block/],
      [upload({ private_key: other.leafKey }), 'private_key', /does not belong to the certificate/],
      [upload({ chain: chain.root }), 'chain', /did not issue the certificate/],
      [{ certificate: other.leaf, private_key: other.leafKey, chain: other.intermediate }, 'certificate', /^does not cover www.manual.example$/],
      [upload({ hostnames: ['manual.example', 'example.org'] }), 'hostnames', /example.org is not under manual.example/],
      [upload({ certificate: `${chain.leaf}\u0000` }), 'certificate', /.*/],
      [{ certificate: chain.leaf }, 'private_key', /.*/],
    ];
    for (const [body, field, detail] of cases) {
      const answer = await core.post(certificatesPath(), body, 422);
      expect(answer.field, JSON.stringify(answer)).to.equal(field);
      expect(answer.detail).to.match(detail);
      expect(JSON.stringify(answer)).to.not.include(keyBody());
    }
    expect(await core.db.sslCertificate.count()).to.equal(before);
    await core.post('/api/v1/domains/missing/ssl/manual-certificate', upload(), 404);
  });

  it('takes the names to cover from the caller', async () => {
    const narrow = await makeTestChain(['api.manual.example']);
    const stored = (await core.post(certificatesPath(), { certificate: narrow.leaf, private_key: narrow.leafKey, chain: narrow.intermediate, hostnames: ['API.manual.example.'] }, 200)).data;
    expect(stored.hostnames).to.deep.equal(['api.manual.example']);
  });
});

describe('manual certificates without CDN_SSL_SECRET_KEY', function () {
  this.timeout(60000);
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
  });
  after(async () => {
    await core?.stop();
  });

  it('refuses to store a key with 409 naming the variable, storing nothing', async () => {
    const chain = await makeTestChain(['nokey.example']);
    const domain = await core.createDomain('nokey.example');
    const answer = await core.post(`/api/v1/domains/${domain.id}/ssl/manual-certificate`, { certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate }, 409);
    expect(answer).to.include({ error: 'ssl key storage is not configured', field: 'private_key' });
    expect(answer.detail).to.include('CDN_SSL_SECRET_KEY');
    expect(await core.db.sslCertificate.count()).to.equal(0);
  });

  it('says in readiness and in the overview warnings that keys cannot be stored', async () => {
    expect((await core.get('/api/v1/readiness')).ssl).to.deep.equal({ key_storage: 'not configured: set CDN_SSL_SECRET_KEY', key_id: null });
    const warning = (await core.get('/api/v1/overview/warnings')).data.warnings.find((item: Json) => item.code === 'ssl_key_storage_not_configured');
    expect(warning).to.include({ severity: 'warning' });
    expect(warning.message).to.include('CDN_SSL_SECRET_KEY');
  });

  it('stops the core at start when the key is malformed', () => {
    expect(() => loadConfig({ CDN_SSL_SECRET_KEY: 'too-short' })).to.throw(/CDN_SSL_SECRET_KEY must be the base64 of 32 random bytes/);
    expect(() => loadConfig({ CDN_SSL_SECRET_KEY: SECRET_KEY, CDN_SSL_SECRET_KEY_PREVIOUS: `${SECRET_KEY},nope` })).to.throw(/CDN_SSL_SECRET_KEY_PREVIOUS must be/);
  });
});

describe('rotating CDN_SSL_SECRET_KEY', function () {
  this.timeout(60000);
  const OLD_KEY = randomBytes(32).toString('base64');
  const NEW_KEY = randomBytes(32).toString('base64');
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ CDN_SSL_SECRET_KEY: OLD_KEY });
  });
  after(async () => {
    await core?.stop();
  });

  it('re-seals keys sealed with an earlier key, leaving none the old key alone opens', async () => {
    const chain = await makeTestChain(['rotate.example']);
    const domain = await core.createDomain('rotate.example');
    const stored = (await core.post(`/api/v1/domains/${domain.id}/ssl/manual-certificate`, { certificate: chain.leaf, private_key: chain.leafKey, chain: chain.intermediate }, 200)).data;
    const oldBox = secretBoxOf(loadConfig({ CDN_SSL_SECRET_KEY: OLD_KEY }))!;
    const rotated = secretBoxOf(loadConfig({ CDN_SSL_SECRET_KEY: NEW_KEY, CDN_SSL_SECRET_KEY_PREVIOUS: OLD_KEY }))!;
    expect(await resealEarlierKeys(core.db, rotated)).to.deep.equal({ resealed: 1, unreadable: [] });
    expect(await resealEarlierKeys(core.db, rotated)).to.deep.equal({ resealed: 0, unreadable: [] });
    const sealed = (await core.db.sslCertificate.findUniqueOrThrow({ where: { id: stored.id } })).private_key_encrypted!;
    expect(secretBoxOf(loadConfig({ CDN_SSL_SECRET_KEY: NEW_KEY }))!.open(sealed, privateKeyContext(stored.id)).toString()).to.equal(chain.leafKey);
    expect(() => oldBox.open(sealed, privateKeyContext(stored.id))).to.throw(/neither CDN_SSL_SECRET_KEY/);
    const stranger = secretBoxOf(loadConfig({ CDN_SSL_SECRET_KEY: randomBytes(32).toString('base64') }))!;
    expect(await resealEarlierKeys(core.db, stranger)).to.deep.equal({ resealed: 0, unreadable: [stored.id] });
  });
});
