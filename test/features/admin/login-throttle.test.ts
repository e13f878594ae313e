import { expect } from 'chai';
import { countAttempt, LOGIN_THROTTLE, pruneLoginThrottles, type ThrottleRow } from '../../../src/features/admin/login-throttle.js';
import { TestCore, type Json } from '../../support/core.js';

const ADMIN = { CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: 'admin', CDN_BOOTSTRAP_ADMIN_PASSWORD: 'admin-password' };
const T0 = new Date('2026-11-23T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const RULE = LOGIN_THROTTLE.user;

// Plays `count` attempts, one a second (or as soon as the block allows), from a fresh row.
function play(count: number): { row: ThrottleRow; waits: number[] } {
  let row: ThrottleRow = { key: 'user:x', failures: 0, blocked_until: null, last_failure_at: T0 };
  let clock = 0;
  const waits: number[] = [];
  for (let i = 0; i < count; i++) {
    const attempt = countAttempt(row, RULE, at(clock));
    if ('retryAfterSeconds' in attempt) throw new Error('played into a block');
    row = attempt.row;
    const wait = row.blocked_until ? (row.blocked_until.getTime() - at(clock).getTime()) / 1000 : 0;
    waits.push(wait);
    clock += Math.max(wait, 1);
  }
  return { row, waits };
}

describe('login throttling policy', () => {
  it('lets the free failures through unblocked, then blocks for doubling times up to the cap', () => {
    const { waits } = play(RULE.free + 9);
    expect(waits.slice(0, RULE.free)).to.deep.equal(new Array(RULE.free).fill(0));
    expect(waits.slice(RULE.free)).to.deep.equal([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it('refuses an attempt during a block without counting it or extending the block', () => {
    const { row } = play(RULE.free + 1);
    const refused = countAttempt(row, RULE, new Date(row.blocked_until!.getTime() - 400));
    expect(refused).to.deep.equal({ retryAfterSeconds: 1 });
  });

  it('forgets failures after a quiet hour counted from the end of the last block', () => {
    const { row } = play(RULE.free + 6);
    const soon = countAttempt(row, RULE, new Date(row.blocked_until!.getTime() + (LOGIN_THROTTLE.quietSeconds - 1) * 1000));
    expect(soon).to.have.nested.property('row.failures', RULE.free + 7);
    const later = countAttempt(row, RULE, new Date(row.blocked_until!.getTime() + (LOGIN_THROTTLE.quietSeconds + 1) * 1000));
    expect(later).to.have.nested.property('row.failures', 1);
  });
});

describe('admin login throttling', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start({ ...ADMIN, CDN_API_TRUSTED_PROXIES: 'loopback' });
  });
  after(async () => {
    await core.stop();
  });
  beforeEach(async () => {
    await core.db.loginThrottle.deleteMany({});
    await core.db.adminLoginClient.deleteMany({});
  });

  const login = async (password: string, from?: string, username = 'admin') => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (from) headers['x-forwarded-for'] = from;
    const response = await fetch(`${core.url}/api/v1/admin/login`, { method: 'POST', headers, body: JSON.stringify({ username, password }) });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Json };
  };

  it('answers a parallel burst of wrong passwords with 429 and Retry-After once the free failures are used', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, () => login('wrong-password', '198.51.100.1')));
    const statuses = answers.map((answer) => answer.status);
    // A block of 1 s may run out while the burst is still arriving on a busy machine, letting one or two more through.
    expect(statuses.filter((status) => status === 401).length).to.be.within(RULE.free + 1, RULE.free + 4);
    expect(statuses.filter((status) => status === 429).length).to.be.at.least(30 - RULE.free - 3);
    for (const throttled of answers.filter((answer) => answer.status === 429)) {
      expect(throttled.body).to.include({ error: 'too many failed logins' });
      expect(throttled.body.retry_after).to.be.within(1, 8);
      expect(throttled.retryAfter).to.equal(String(throttled.body.retry_after));
    }
  });

  it('lets the admin in again once Retry-After has passed, and forgets the failures', async () => {
    for (let i = 0; i <= RULE.free; i++) expect((await login('wrong-password', '198.51.100.2')).status).to.equal(401);
    // The block the last failure set may already have run out on a slow machine; hold it for two seconds.
    await core.db.loginThrottle.update({ where: { key: 'user:admin' }, data: { blocked_until: new Date(Date.now() + 2000) } });
    const refused = await login('admin-password', '198.51.100.2');
    expect(refused.status).to.equal(429);
    await new Promise((resolve) => setTimeout(resolve, Number(refused.retryAfter) * 1000 + 50));
    expect((await login('admin-password', '198.51.100.2')).status).to.equal(200);
    expect(await core.db.loginThrottle.count()).to.equal(0);
  });

  it('does not lock the admin out from an address they logged in from before, while others have the username blocked', async () => {
    expect((await login('admin-password')).status).to.equal(200);
    await core.db.loginThrottle.create({ data: { key: 'user:admin', failures: 40, blocked_until: new Date(Date.now() + 60000), last_failure_at: new Date() } });
    expect((await login('admin-password', '203.0.113.99')).status, 'a new address waits').to.equal(429);
    expect((await login('admin-password')).status, 'the known address gets in').to.equal(200);
    expect((await core.db.loginThrottle.findUniqueOrThrow({ where: { key: 'user:admin' } })).failures, 'and does not lift the block for others').to.equal(40);
  });

  it('blocks one address that guesses across many usernames', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_THROTTLE.client.free + 2; i++) statuses.push((await login('wrong-password', '192.0.2.50', `user${i}`)).status);
    expect(statuses.slice(0, LOGIN_THROTTLE.client.free + 1).every((status) => status === 401)).to.equal(true);
    expect(statuses.at(-1)).to.equal(429);
    expect((await login('wrong-password', '192.0.2.51', 'someone')).status, 'another address is not blocked').to.equal(401);
  });

  it('counts the addresses of one IPv6 /64 as one client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_THROTTLE.client.free + 2; i++) statuses.push((await login('wrong-password', `2001:db8:1:2::${(i + 1).toString(16)}`, `user${i}`)).status);
    expect(statuses.at(-1)).to.equal(429);
    expect((await login('wrong-password', '2001:db8:1:3::1', 'someone')).status, 'the next /64 is not blocked').to.equal(401);
  });

  it('prunes throttle rows with nothing left to remember', async () => {
    await login('wrong-password', '192.0.2.60');
    expect(await core.db.loginThrottle.count()).to.equal(2);
    expect(await pruneLoginThrottles(core.core.connection.pool, new Date(Date.now() + 1000))).to.equal(0);
    expect(await pruneLoginThrottles(core.core.connection.pool, new Date(Date.now() + (LOGIN_THROTTLE.quietSeconds + 5) * 1000))).to.equal(2);
  });
});
