import { expect } from 'chai';
import { edgeLabels, heartbeatBody, type HeartbeatInfo } from '../../../src/edge/agent/heartbeat.js';
import { VersionCounters } from '../../../src/edge/agent/version-counters.js';
import { TelemetryBuffer } from '../../../src/edge/worker/telemetry-buffer.js';
import type { ToPrimary } from '../../../src/edge/worker/messages.js';

const INFO: HeartbeatInfo = { hostname: 'edge-1.example', version: '0.1.0', healthy: true, configVersion: 3, configChecksum: null, configError: null, purgeAcks: [], purgeFailures: [] };

// The per-version counters the canary rollout judges a version on (docs/rollout.md).
describe('edge per-version request counters', () => {
  it('counts requests, 5xx answers and origin failures per version', () => {
    const counters = new VersionCounters();
    counters.count(3, 200, false);
    counters.count(3, 502, true);
    counters.count(3, 503, false);
    counters.count(2, 200, false);
    expect(counters.list()).to.deep.equal([
      { version: 3, requests: 3, status_5xx: 2, origin_errors: 1 },
      { version: 2, requests: 1, status_5xx: 0, origin_errors: 0 },
    ]);
  });

  it('keeps only the four newest versions (the heartbeat schema bound)', () => {
    const counters = new VersionCounters();
    for (const version of [1, 2, 3, 4, 5, 6]) counters.add({ version, requests: version, status_5xx: 0, origin_errors: 0 });
    expect(counters.list().map((count) => count.version)).to.deep.equal([6, 5, 4, 3]);
  });

  it('sends a worker’s counts with its telemetry, even when the usage queue has no room', () => {
    const sent: ToPrimary[] = [];
    const buffer = new TelemetryBuffer(1, (message) => sent.push(message));
    buffer.setRoom({ usage: 0, security: 0, observations: 0 });
    buffer.countVersion(7, 502, true);
    buffer.countVersion(7, 200, false);
    buffer.stop();
    const message = sent[0] as Extract<ToPrimary, { t: 'telemetry' }>;
    expect(message.versions).to.deep.equal([{ version: 7, requests: 2, status_5xx: 1, origin_errors: 1 }]);
  });

  it('reports labels and counters in the heartbeat, leaving them out when empty', () => {
    const counts = [{ version: 3, requests: 10, status_5xx: 1, origin_errors: 1 }];
    expect(heartbeatBody('edge-1', { ...INFO, labels: ['canary'], versionCounters: counts }).body).to.deep.include({ labels: ['canary'], version_counters: counts });
    const bare = heartbeatBody('edge-1', INFO).body;
    expect(bare).to.not.have.property('labels');
    expect(bare).to.not.have.property('version_counters');
  });

  it('reads CDN_EDGE_LABELS as lower-case labels, leaving malformed ones out', () => {
    expect(edgeLabels(' Canary, eu-west ,,bad label,canary')).to.deep.equal(['canary', 'eu-west']);
    expect(edgeLabels('')).to.deep.equal([]);
  });
});
