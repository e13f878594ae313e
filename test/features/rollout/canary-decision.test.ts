import { expect } from 'chai';
import { judgeCanary, pickCanaries, totalsOf, type RolloutSettings, type Totals } from '../../../src/features/rollout/canary-decision.js';

const SETTINGS: RolloutSettings = { enabled: true, canary_labels: [], canary_percent: 0, bake_seconds: 60, max_error_margin_percent: 1, min_canary_requests: 100 };
const totals = (version: number, requests: number, status5xx: number): Totals => ({ version, edges: 1, requests, status_5xx: status5xx, origin_errors: 0, error_ratio: requests ? status5xx / requests : 0 });

describe('canary rollout decision', () => {
  it('waits while the canaries have served fewer than min_canary_requests, however bad the ratio', () => {
    const verdict = judgeCanary(SETTINGS, totals(2, 99, 99), totals(1, 1000, 0), 3600);
    expect(verdict.decision).to.equal('wait');
    expect(verdict.reason).to.equal('99 of 100 canary requests served');
  });

  it('fails as soon as the 5xx ratio exceeds the baseline by more than the margin, before the bake time', () => {
    // baseline 1%, margin 1 point: 2.1% fails, 2% does not.
    expect(judgeCanary(SETTINGS, totals(2, 1000, 21), totals(1, 1000, 10), 5).decision).to.equal('fail');
    expect(judgeCanary(SETTINGS, totals(2, 1000, 20), totals(1, 1000, 10), 5).decision).to.equal('wait');
  });

  it('names the numbers that caused a failure', () => {
    const verdict = judgeCanary(SETTINGS, totals(2, 200, 200), totals(1, 500, 0), 5);
    expect(verdict.reason).to.equal('canary 5xx ratio 100.00% (200 of 200 requests, 0 origin errors) against 0.00% on version 1 (0 of 500), margin 1 points: above 1.00%');
    expect(verdict.numbers).to.deep.include({ max_error_ratio: 0.01, min_canary_requests: 100, baked_seconds: 5, bake_seconds: 60 });
    expect(verdict.numbers.canary).to.include({ requests: 200, status_5xx: 200 });
  });

  it('promotes only once bake_seconds have passed with enough requests and the ratio within the margin', () => {
    expect(judgeCanary(SETTINGS, totals(2, 1000, 5), totals(1, 1000, 5), 59).decision).to.equal('wait');
    expect(judgeCanary(SETTINGS, totals(2, 1000, 5), totals(1, 1000, 5), 60).decision).to.equal('promote');
  });

  it('takes a baseline without requests as a 0 ratio', () => {
    expect(judgeCanary({ ...SETTINGS, max_error_margin_percent: 0 }, totals(2, 100, 1), totals(1, 0, 0), 60).decision).to.equal('fail');
    expect(judgeCanary({ ...SETTINGS, max_error_margin_percent: 0 }, totals(2, 100, 0), totals(1, 0, 0), 60).decision).to.equal('promote');
  });

  it('sums one version across the edges that report it', () => {
    const sum = totalsOf(3, [[{ version: 3, requests: 10, status_5xx: 2, origin_errors: 1 }, { version: 2, requests: 99, status_5xx: 0, origin_errors: 0 }], [{ version: 3, requests: 30, status_5xx: 2, origin_errors: 2 }], []]);
    expect(sum).to.deep.equal({ version: 3, edges: 2, requests: 40, status_5xx: 4, origin_errors: 3, error_ratio: 0.1 });
  });

  it('picks edges by label and a stable, rounded-up percentage of the pool', () => {
    const pool = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ edge_id: `edge-${id}`, labels: id === 'c' ? ['canary'] : [] }));
    expect(pickCanaries(pool, { canary_labels: ['canary'], canary_percent: 0 })).to.deep.equal(['edge-c']);
    expect(pickCanaries(pool, { canary_labels: [], canary_percent: 0 })).to.deep.equal([]);
    const fifth = pickCanaries(pool, { canary_labels: [], canary_percent: 10 });
    expect(fifth).to.have.length(1);
    expect(pickCanaries([...pool].reverse(), { canary_labels: [], canary_percent: 10 })).to.deep.equal(fifth);
    expect(pickCanaries(pool, { canary_labels: [], canary_percent: 100 })).to.have.length(5);
  });
});
