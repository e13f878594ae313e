import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { loadConfig } from '../../../src/config/load.js';
import { migrate } from '../../../src/db/migrator.js';
import { clientIpPolicyLoader } from '../../../src/features/collector/client-ip-key.js';
import { storedClientIp } from '../../../src/features/collector/client-ip.js';
import { createTestDatabase, dropTestDatabase, testPool } from '../../support/database.js';

const KEY = Buffer.from('k'.repeat(32));
const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');

describe('stored client IPs', () => {
  it('stores the HMAC-SHA-256 of the address under the key, never the address', () => {
    expect(storedClientIp('192.0.2.7', { storeFull: false, key: KEY })).to.equal(hmac(KEY, '192.0.2.7'));
    expect(storedClientIp('192.0.2.7', { storeFull: false, key: Buffer.from('x'.repeat(32)) })).not.to.equal(hmac(KEY, '192.0.2.7'));
  });

  it('hashes one canonical text per address', () => {
    const policy = { storeFull: false, key: KEY };
    expect(storedClientIp('2001:DB8:0:0::1', policy)).to.equal(hmac(KEY, '2001:db8::1'));
    expect(storedClientIp('::ffff:192.0.2.7', policy)).to.equal(hmac(KEY, '192.0.2.7'));
    expect(storedClientIp('2001:DB8::1', { storeFull: true, key: KEY })).to.equal('2001:db8::1');
  });

  it('gives the same hash from its memory of recent addresses, and forgets them past its bound', () => {
    const policy = { storeFull: false, key: KEY, recent: new Map<string, string>() };
    expect(storedClientIp('2001:DB8::1', policy)).to.equal(hmac(KEY, '2001:db8::1'));
    expect(storedClientIp('2001:DB8::1', policy)).to.equal(hmac(KEY, '2001:db8::1'));
    for (let i = 0; i < 10000; i++) storedClientIp(`10.0.${i >> 8}.${i & 255}`, policy);
    expect(policy.recent.size).to.be.at.most(10000);
    expect(storedClientIp('10.0.0.1', policy)).to.equal(hmac(KEY, '10.0.0.1'));
  });

  it('stores nothing for no address', () => {
    expect(storedClientIp(undefined, { storeFull: false, key: KEY })).to.equal(null);
    expect(storedClientIp('', { storeFull: true, key: KEY })).to.equal(null);
  });

  it('refuses a CDN_CLIENT_IP_HASH_KEY shorter than 32 characters', () => {
    expect(() => loadConfig({ CDN_CLIENT_IP_HASH_KEY: 'short' })).to.throw('CDN_CLIENT_IP_HASH_KEY must be at least 32 characters');
  });
});

describe('the client IP hash key', () => {
  let url: string;
  let pool: pg.Pool;
  before(async () => {
    url = await createTestDatabase();
    pool = testPool({ connectionString: url, max: 20 });
    // The drop in `after` terminates whatever is still connected; that is expected, not a failure.
    pool.on('error', () => undefined);
    await migrate(pool);
  });
  after(async () => {
    await pool.end();
    await dropTestDatabase(url);
  });

  it('is CDN_CLIENT_IP_HASH_KEY when set', async () => {
    const load = clientIpPolicyLoader(loadConfig({ CDN_CLIENT_IP_HASH_KEY: 'k'.repeat(32) }), pool);
    expect((await load()).key.equals(KEY)).to.equal(true);
    expect(await load(), 'made once').to.equal(await load());
  });

  it('is otherwise one random key per installation, the same for every core that races to make it', async () => {
    const loaders = Array.from({ length: 20 }, () => clientIpPolicyLoader(loadConfig({}), pool));
    const keys = (await Promise.all(loaders.map((load) => load()))).map((policy) => policy.key);
    expect(new Set(keys.map((key) => key.toString('hex'))).size).to.equal(1);
    expect(keys[0]).to.have.length(32);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM installation_secrets');
    expect(rows[0].n).to.equal(1);
  });
});
