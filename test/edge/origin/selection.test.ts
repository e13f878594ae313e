import { expect } from 'chai';
import { OriginBreakers } from '../../../src/edge/origin/breaker.js';
import { OriginHealthView } from '../../../src/edge/origin/health-view.js';
import { orderOrigins } from '../../../src/edge/origin/selection.js';
import { activeDomain, origin } from './support.js';

const NOW = 1_800_000_000_000;
const failure = { success: false, failureKind: 'connect' as const, httpStatus: null, latencyMs: 1, detail: null };

describe('edge origin selection', () => {
  it('gives the same try order for the same seed', () => {
    const domain = activeDomain([origin({ port: 1 }), origin({ port: 2 }), origin({ port: 3 })]);
    const health = new OriginHealthView();
    const first = orderOrigins(domain, 'example.test/a.png', health, NOW).map((o) => o.id);
    for (let i = 0; i < 5; i++) expect(orderOrigins(domain, 'example.test/a.png', health, NOW).map((o) => o.id)).to.deep.equal(first);
    expect(new Set(first).size).to.equal(3);
  });

  it('spreads 10k seeds in proportion to the weights (1:3 within 5 %)', () => {
    const light = origin({ port: 1, weight: 100 });
    const heavy = origin({ port: 2, weight: 300 });
    const domain = activeDomain([light, heavy]);
    const health = new OriginHealthView();
    let heavyCount = 0;
    for (let i = 0; i < 10000; i++) if (orderOrigins(domain, `example.test/object/${i}.jpg`, health, NOW)[0].id === heavy.id) heavyCount++;
    expect(heavyCount / 10000).to.be.within(0.75 * 0.95, 0.75 * 1.05);
  });

  it('moves only the seeds of a removed origin', () => {
    const origins = [origin({ port: 1 }), origin({ port: 2 }), origin({ port: 3 })];
    const health = new OriginHealthView();
    const before = activeDomain(origins);
    const after = activeDomain(origins.slice(0, 2));
    for (let i = 0; i < 2000; i++) {
      const chosen = orderOrigins(before, `s${i}`, health, NOW)[0];
      if (chosen.id !== origins[2].id) expect(orderOrigins(after, `s${i}`, health, NOW)[0].id).to.equal(chosen.id);
    }
  });

  it('puts usable primaries first, then backups, then shield origins', () => {
    const shield = origin({ port: 1, shield: { region: 'eu' } });
    const backup = origin({ port: 2, role: 'backup' });
    const primary = origin({ port: 3 });
    const order = orderOrigins(activeDomain([shield, backup, primary]), 'seed', new OriginHealthView(), NOW);
    expect(order.map((o) => o.id)).to.deep.equal([primary.id, backup.id, shield.id]);
  });

  it('skips a primary the core reports unhealthy and uses the backup', () => {
    const primary = origin({ port: 1, health_status: 'unhealthy' });
    const backup = origin({ port: 2, role: 'backup' });
    expect(orderOrigins(activeDomain([primary, backup]), 'seed', new OriginHealthView(), NOW).map((o) => o.id)).to.deep.equal([backup.id]);
  });

  it('skips a primary this worker saw failing even while the core says healthy', () => {
    const primary = origin({ port: 1, health_status: 'healthy' });
    const backup = origin({ port: 2, role: 'backup' });
    const health = new OriginHealthView();
    for (let i = 0; i < 3; i++) health.recordPassive(primary.id, failure, NOW - 1000);
    expect(orderOrigins(activeDomain([primary, backup]), 'seed', health, NOW)[0].id).to.equal(backup.id);
  });

  it('takes back a primary the core calls unhealthy once this worker sees it answer', () => {
    const primary = origin({ port: 1, health_status: 'unhealthy' });
    const backup = origin({ port: 2, role: 'backup' });
    const health = new OriginHealthView();
    for (let i = 0; i < 3; i++) health.recordPassive(primary.id, { success: true, failureKind: null, httpStatus: 200, latencyMs: 1, detail: null }, NOW - 1000);
    expect(orderOrigins(activeDomain([primary, backup]), 'seed', health, NOW)[0].id).to.equal(primary.id);
  });

  it('skips breaker-open primaries and backups for the shield origin', () => {
    const primary = origin({ port: 1, circuit_breaker: { failure_threshold: 1, window_seconds: 10, cooldown_seconds: 10 } });
    const backup = origin({ port: 2, role: 'backup', health_status: 'unhealthy' });
    const shield = origin({ port: 3, role: 'backup', shield: { region: null } });
    const breakers = new OriginBreakers();
    breakers.record(primary, false, NOW);
    expect(orderOrigins(activeDomain([primary, backup, shield]), 'seed', new OriginHealthView(), NOW, breakers).map((o) => o.id)).to.deep.equal([shield.id]);
  });

  it('falls back to unhealthy origins, never breaker-open ones, when nothing is usable', () => {
    const open = origin({ port: 1, circuit_breaker: { failure_threshold: 1, window_seconds: 10, cooldown_seconds: 10 } });
    const sick = origin({ port: 2, health_status: 'unhealthy' });
    const breakers = new OriginBreakers();
    breakers.record(open, false, NOW);
    expect(orderOrigins(activeDomain([open, sick]), 'seed', new OriginHealthView(), NOW, breakers).map((o) => o.id)).to.deep.equal([sick.id]);
  });

  it('tries a domain\'s one origin whatever the core or this worker think of its health', () => {
    const only = origin({ port: 1, health_status: 'unhealthy' });
    const health = new OriginHealthView();
    for (let i = 0; i < 3; i++) health.recordPassive(only.id, failure, NOW - 1000);
    expect(orderOrigins(activeDomain([only]), 'seed', health, NOW, new OriginBreakers()).map((o) => o.id)).to.deep.equal([only.id]);
  });

  it('leaves nothing to try when every breaker is open', () => {
    const only = origin({ port: 1, circuit_breaker: { failure_threshold: 1, window_seconds: 10, cooldown_seconds: 10 } });
    const breakers = new OriginBreakers();
    breakers.record(only, false, NOW);
    expect(orderOrigins(activeDomain([only]), 'seed', new OriginHealthView(), NOW, breakers)).to.deep.equal([]);
  });
});
