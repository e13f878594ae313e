import { expect } from 'chai';
import { OriginBreakers } from '../../../src/edge/origin/breaker.js';
import { OriginHealthView } from '../../../src/edge/origin/health-view.js';
import type { OriginObservation } from '../../../src/edge/origin/observation.js';
import { RetryBudget } from '../../../src/edge/origin/retry-budget.js';
import { origin } from './support.js';

const NOW = 1_800_000_000_000;
const ok = { success: true, failureKind: null, httpStatus: 200, latencyMs: 5, detail: null };
const bad = { success: false, failureKind: 'timeout' as const, httpStatus: null, latencyMs: 5, detail: 'slow' };

describe('edge origin circuit breaker', () => {
  const settings = { failure_threshold: 3, window_seconds: 10, cooldown_seconds: 5 };

  it('opens after failure_threshold failures within the window', () => {
    const target = origin({ port: 1, circuit_breaker: settings });
    const breakers = new OriginBreakers();
    breakers.record(target, false, NOW);
    breakers.record(target, false, NOW + 1000);
    expect(breakers.state(target, NOW + 1000)).to.equal('closed');
    breakers.record(target, false, NOW + 2000);
    expect(breakers.state(target, NOW + 2000)).to.equal('open');
    expect(breakers.tryAcquire(target, NOW + 2000)).to.equal(false);
  });

  it('keeps a breaker opened against one address of an origin from shutting another address of it (a rolled-back config)', () => {
    const dead = origin({ port: 1, circuit_breaker: settings });
    const breakers = new OriginBreakers();
    for (const at of [NOW, NOW + 1, NOW + 2]) breakers.record(dead, false, at);
    expect(breakers.state(dead, NOW + 3)).to.equal('open');
    expect(breakers.state({ ...dead, port: 2 }, NOW + 3)).to.equal('closed');
    breakers.retainOnly(new Set([dead.id]));
    expect(breakers.state(dead, NOW + 3)).to.equal('open');
    breakers.retainOnly(new Set());
    expect(breakers.state(dead, NOW + 3)).to.equal('closed');
  });

  it('does not count failures older than the window', () => {
    const target = origin({ port: 1, circuit_breaker: settings });
    const breakers = new OriginBreakers();
    breakers.record(target, false, NOW);
    breakers.record(target, false, NOW + 1000);
    breakers.record(target, false, NOW + 11000);
    expect(breakers.state(target, NOW + 11000)).to.equal('closed');
  });

  it('lets one trial through after the cooldown and closes on its success', () => {
    const target = origin({ port: 1, circuit_breaker: settings });
    const breakers = new OriginBreakers();
    for (let i = 0; i < 3; i++) breakers.record(target, false, NOW);
    expect(breakers.state(target, NOW + 5000)).to.equal('half_open');
    expect(breakers.tryAcquire(target, NOW + 5000)).to.equal(true);
    expect(breakers.tryAcquire(target, NOW + 5001)).to.equal(false);
    breakers.record(target, true, NOW + 5100);
    expect(breakers.state(target, NOW + 5100)).to.equal('closed');
    expect(breakers.tryAcquire(target, NOW + 5100)).to.equal(true);
  });

  it('opens again when the trial fails', () => {
    const target = origin({ port: 1, circuit_breaker: settings });
    const breakers = new OriginBreakers();
    for (let i = 0; i < 3; i++) breakers.record(target, false, NOW);
    expect(breakers.tryAcquire(target, NOW + 5000)).to.equal(true);
    breakers.record(target, false, NOW + 5100);
    expect(breakers.state(target, NOW + 5100)).to.equal('open');
    expect(breakers.state(target, NOW + 10100)).to.equal('half_open');
  });

  it('never opens for an origin without breaker settings', () => {
    const target = origin({ port: 1, circuit_breaker: null });
    const breakers = new OriginBreakers();
    for (let i = 0; i < 50; i++) breakers.record(target, false, NOW);
    expect(breakers.isOpen(target, NOW)).to.equal(false);
  });
});

describe('edge origin retry budget', () => {
  const settings = { budget_percent: 20, budget_min_per_second: 1 };

  it('allows the floor of budget_min_per_second × 10 retries on a quiet pool', () => {
    const budget = new RetryBudget();
    budget.noteRequest('pool', NOW);
    let allowed = 0;
    for (let i = 0; i < 20; i++) if (budget.tryRetry('pool', settings, NOW)) allowed++;
    expect(allowed).to.equal(10);
  });

  it('allows budget_percent of the last 10 seconds\' requests on a busy pool', () => {
    const budget = new RetryBudget();
    for (let i = 0; i < 1000; i++) budget.noteRequest('pool', NOW + (i % 10) * 1000);
    let allowed = 0;
    for (let i = 0; i < 500; i++) if (budget.tryRetry('pool', settings, NOW + 9000)) allowed++;
    expect(allowed).to.equal(200);
  });

  it('frees the budget once the retries leave the 10-second window', () => {
    const budget = new RetryBudget();
    for (let i = 0; i < 10; i++) budget.tryRetry('pool', settings, NOW);
    expect(budget.tryRetry('pool', settings, NOW + 5000)).to.equal(false);
    expect(budget.tryRetry('pool', settings, NOW + 10000)).to.equal(true);
  });
});

describe('edge origin health view', () => {
  it('calls an origin unhealthy when half of at least three observations failed', () => {
    const health = new OriginHealthView();
    health.recordPassive('o1', bad, NOW);
    health.recordPassive('o1', bad, NOW);
    expect(health.localStatus('o1', NOW)).to.equal('unknown');
    health.recordPassive('o1', ok, NOW);
    health.recordPassive('o1', ok, NOW);
    expect(health.localStatus('o1', NOW)).to.equal('unhealthy');
    health.recordPassive('o1', ok, NOW);
    expect(health.localStatus('o1', NOW)).to.equal('degraded');
  });

  it('forgets observations older than two minutes and falls back to the core status', () => {
    const health = new OriginHealthView();
    const target = origin({ port: 1, health_status: 'healthy' });
    for (let i = 0; i < 3; i++) health.recordPassive(target.id, bad, NOW);
    expect(health.isUsable(target, NOW + 119000)).to.equal(false);
    expect(health.isUsable(target, NOW + 121000)).to.equal(true);
  });

  it('gives the verdict of a plain recount of the last two minutes, as observations and late probe results come in', () => {
    // A reference: every observation kept, the ones of the 120 seconds up to the asked one counted.
    const kept: { second: number; success: boolean }[] = [];
    const reference = (now: number) => {
      const second = Math.floor(now / 1000);
      const inside = kept.filter((entry) => entry.second > second - 120 && entry.second <= second);
      const failures = inside.filter((entry) => !entry.success).length;
      if (inside.length < 3) return 'unknown';
      const ratio = failures / inside.length;
      return ratio >= 0.5 ? 'unhealthy' : ratio >= 0.1 ? 'degraded' : 'healthy';
    };
    const health = new OriginHealthView();
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    let now = NOW;
    for (let step = 0; step < 3000; step++) {
      // Mostly the same or the next second, sometimes a pause of minutes; failures come in spells.
      const gap = random();
      now += gap < 0.6 ? 0 : gap < 0.97 ? 1000 : Math.floor(random() * 300) * 1000;
      const success = Math.floor(now / 60000) % 3 !== 0 || random() < 0.3;
      health.recordPassive('o1', success ? ok : bad, now);
      kept.push({ second: Math.floor(now / 1000), success });
      // Now and then a probe result from up to 130 s ago (the primary's broadcast arrives late).
      if (random() < 0.2) {
        const second = Math.floor((now - Math.floor(random() * 130000)) / 1000);
        const passed = random() < 0.5;
        health.applyProbe({ origin_id: 'o1', source: 'probe', success: passed, failure_kind: passed ? null : 'connect', http_status: null, latency_ms: 1, detail: null, timestamp: second }, now);
        if (second > Math.floor(now / 1000) - 120) kept.push({ second, success: passed });
      }
      expect(health.localStatus('o1', now), `step ${step}`).to.equal(reference(now));
      const later = now + Math.floor(random() * 130) * 1000;
      expect(health.localStatus('o1', later), `step ${step}, asked later`).to.equal(reference(later));
    }
  });

  it('counts probe results broadcast by the primary', () => {
    const health = new OriginHealthView();
    const probe = (success: boolean): OriginObservation => ({ origin_id: 'o1', source: 'probe', success, failure_kind: success ? null : 'connect', http_status: null, latency_ms: 1, detail: null, timestamp: Math.floor(NOW / 1000) });
    for (let i = 0; i < 3; i++) health.applyProbe(probe(false), NOW + 500);
    expect(health.localStatus('o1', NOW + 500)).to.equal('unhealthy');
  });

  it('reports one passive observation per origin and second whatever the outcome', () => {
    const sent: OriginObservation[] = [];
    const health = new OriginHealthView({ onObservation: (observation) => sent.push(observation) });
    health.recordPassive('o1', ok, NOW);
    health.recordPassive('o1', bad, NOW + 100);
    health.recordPassive('o2', bad, NOW + 200);
    health.recordPassive('o1', bad, NOW + 1000);
    expect(sent.map((o) => [o.origin_id, o.success, o.source])).to.deep.equal([['o1', true, 'passive'], ['o2', false, 'passive'], ['o1', false, 'passive']]);
    expect(sent[2]).to.include({ failure_kind: 'timeout', detail: 'slow', timestamp: Math.floor((NOW + 1000) / 1000) });
    expect(health.localStatus('o1', NOW + 1000)).to.equal('unhealthy');
  });
});
