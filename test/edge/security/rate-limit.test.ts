import { expect } from 'chai';
import { ipRulesPhase } from '../../../src/edge/security/ip-rules-phase.js';
import { rateLimitPhase } from '../../../src/edge/security/rate-limit-phase.js';
import { requestedChallenge } from '../../../src/edge/security/security-state.js';
import { SlidingWindowLimiter } from '../../../src/edge/security/sliding-window.js';
import { activeConfig, fakeContext, rule, type FakeRequest } from '../rules/request-context.js';

function clock(start = 1_000_000_000_000) {
  const state = { now: start };
  return { now: () => state.now, advance: (ms: number) => void (state.now += ms), set: (ms: number) => void (state.now = ms) };
}

describe('sliding window counter', () => {
  it('allows exactly the limit inside one fixed window', () => {
    const time = clock(60_000 * 1000);
    const limiter = new SlidingWindowLimiter(10, time.now);
    const verdicts = Array.from({ length: 6 }, () => limiter.hit('k', 5, 60).over);
    expect(verdicts).to.deep.equal([false, false, false, false, false, true]);
  });

  it('weights the previous window by the share still inside the sliding window', () => {
    const time = clock(60_000 * 1000);
    const limiter = new SlidingWindowLimiter(10, time.now);
    for (let i = 0; i < 10; i++) limiter.hit('k', 10, 60);
    time.advance(60_000 + 15_000); // a quarter into the next window: 75% of the previous 10 still count
    expect(limiter.hit('k', 10, 60)).to.include({ over: false, estimate: 8.5 });
    expect(limiter.hit('k', 10, 60).estimate).to.equal(9.5);
    expect(limiter.hit('k', 10, 60)).to.include({ over: true, estimate: 10.5 });
    time.advance(30_000); // three quarters in: 25% of 10 plus the 3 counted
    expect(limiter.hit('k', 10, 60)).to.include({ over: false, estimate: 6.5 });
  });

  it('forgets a key idle for two whole windows', () => {
    const time = clock(60_000 * 1000);
    const limiter = new SlidingWindowLimiter(10, time.now);
    for (let i = 0; i < 10; i++) limiter.hit('k', 10, 60);
    time.advance(120_000);
    expect(limiter.hit('k', 10, 60)).to.include({ over: false, estimate: 1 });
  });

  it('keeps a key blocked for the block time without counting, then counts afresh', () => {
    const time = clock(60_000 * 1000);
    const limiter = new SlidingWindowLimiter(10, time.now);
    limiter.hit('k', 1, 10, 30);
    expect(limiter.hit('k', 1, 10, 30)).to.deep.equal({ over: true, estimate: 2, retryAfterSeconds: 30 });
    time.advance(20_000);
    expect(limiter.hit('k', 1, 10, 30)).to.deep.include({ over: true, retryAfterSeconds: 10 });
    time.advance(10_001);
    expect(limiter.hit('k', 1, 10, 30).over).to.equal(false);
  });

  it('evicts the least recently seen key past the bound', () => {
    const time = clock();
    const limiter = new SlidingWindowLimiter(3, time.now);
    for (const key of ['a', 'b', 'c']) limiter.hit(key, 1, 60);
    limiter.hit('a', 1, 60); // a is now the most recent; b is the oldest
    limiter.hit('d', 1, 60);
    expect(limiter.size).to.equal(3);
    expect(limiter.hit('a', 1, 60).over).to.equal(true);
    expect(limiter.hit('b', 1, 60).over).to.equal(false);
  });
});

describe('rate-limit phase', () => {
  const config = activeConfig({
    'ip-rules': [rule({ cidr: '198.51.100.0/24', action: 'allow', match: { ips: ['198.51.100.0/24'] } })],
    'rate-limits': [
      rule({ id: 'login', priority: 1, match: { paths: [{ kind: 'exact', value: '/login' }] }, requests: 2, period_seconds: 60, key: 'ip', action: 'block', block_seconds: 120 }),
      rule({ id: 'api', priority: 2, match: { paths: [{ kind: 'prefix', value: '/api' }] }, requests: 1, period_seconds: 60, key: 'header', key_header: 'X-Api-Key', action: 'log' }),
      rule({ id: 'pages', priority: 3, match: { paths: [{ kind: 'prefix', value: '/p/' }] }, requests: 1, period_seconds: 60, key: 'ip_path', action: 'challenge', challenge_difficulty: 2 }),
      rule({ id: 'never', priority: 4, match: { paths: [{ kind: 'exact', value: '/login' }] }, requests: 1000, period_seconds: 1, action: 'block' }),
    ],
  });

  function run(phase: ReturnType<typeof rateLimitPhase>, request: FakeRequest) {
    const ctx = fakeContext(config, request);
    ipRulesPhase.run(ctx);
    return { handled: phase.run(ctx), ctx };
  }

  it('answers 429 with Retry-After past the limit and keeps the key blocked', () => {
    const time = clock();
    const phase = rateLimitPhase({ now: time.now });
    expect(run(phase, { url: '/login' }).handled).to.equal(false);
    expect(run(phase, { url: '/login' }).handled).to.equal(false);
    const third = run(phase, { url: '/login' });
    expect(third.handled).to.equal(true);
    expect(third.ctx.response?.status).to.equal(429);
    expect(third.ctx.response?.headers['retry-after']).to.equal('120');
    expect(third.ctx.findings).to.deep.equal([{ kind: 'rate_limit', action: 'block', rule_id: 'login', details: { requests: 2, period_seconds: 60, key: 'ip' } }]);
    time.advance(90_000);
    expect(run(phase, { url: '/login' }).ctx.response?.headers['retry-after']).to.equal('30');
    expect(run(phase, { url: '/login', ip: '192.0.2.99' }).handled).to.equal(false);
  });

  it('counts per header value, and per address when the header is absent', () => {
    const phase = rateLimitPhase({ now: clock().now });
    expect(run(phase, { url: '/api/a', headers: { 'x-api-key': 'k1' } }).ctx.findings).to.deep.equal([]);
    expect(run(phase, { url: '/api/a', headers: { 'x-api-key': 'k2' } }).ctx.findings).to.deep.equal([]);
    const over = run(phase, { url: '/api/b', headers: { 'x-api-key': 'k1' }, ip: '192.0.2.50' });
    expect(over.handled).to.equal(false);
    expect(over.ctx.findings.map((f) => [f.kind, f.action, f.rule_id])).to.deep.equal([['rate_limit', 'log', 'api']]);
    expect(run(phase, { url: '/api/a' }).ctx.findings).to.deep.equal([]);
    expect(run(phase, { url: '/api/a' }).ctx.findings).to.have.length(1);
  });

  it('asks for a challenge per address and path at the rule level', () => {
    const phase = rateLimitPhase({ now: clock().now });
    run(phase, { url: '/p/one' });
    expect(requestedChallenge(run(phase, { url: '/p/two' }).ctx)).to.equal(undefined);
    const over = run(phase, { url: '/p/one' });
    expect(over.handled).to.equal(false);
    expect(requestedChallenge(over.ctx)).to.deep.equal({ level: 2, kind: 'rate_limit', ruleId: 'pages' });
  });

  it('leaves alone requests an IP rule allowed or a page rule exempted', () => {
    const phase = rateLimitPhase({ now: clock().now });
    for (let i = 0; i < 5; i++) expect(run(phase, { url: '/login', ip: '198.51.100.3' }).handled).to.equal(false);
    const ctx = fakeContext(config, { url: '/login' });
    ctx.page = { disable_features: ['rate_limit'] };
    for (let i = 0; i < 5; i++) expect(phase.run(ctx)).to.equal(false);
  });
});
