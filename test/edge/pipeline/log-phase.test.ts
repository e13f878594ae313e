import { expect } from 'chai';
import { createLogPhase, type TelemetrySink } from '../../../src/edge/pipeline/log-phase.js';
import { CACHE_STATUSES, cacheStatusIndex, type CacheStatus, type RequestContext } from '../../../src/edge/pipeline/context.js';
import type { UsageEvent } from '../../../src/edge/worker/messages.js';

// What the log phase reads of a request answered 200 with `cacheStatus`.
function answered(cacheStatus: CacheStatus): RequestContext {
  return {
    tunnelStatus: undefined,
    res: { headersSent: true, statusCode: 200 },
    domain: { apex: 'example.test' },
    host: 'www.example.test',
    path: '/a',
    receivedSecond: 1_800_000_000,
    config: { version: 7 },
    originFailed: false,
    bytesSent: 10,
    cacheStatus,
    country: 'DE',
    clientIp: '192.0.2.1',
    findings: [],
    headers: {},
  } as unknown as RequestContext;
}

describe('the edge log phase and cache statuses', () => {
  it('indexes every cache status at its place in the list the metrics and usage tables follow', () => {
    CACHE_STATUSES.forEach((status, index) => expect(cacheStatusIndex(status), status).to.equal(index));
    expect(new Set(CACHE_STATUSES).size).to.equal(6);
  });

  it('names each cache status in usage events the way the collector takes them (lower case)', () => {
    const events: UsageEvent[] = [];
    const sink: TelemetrySink = { countVersion: () => undefined, usage: (event) => events.push(event), security: () => undefined };
    const log = createLogPhase(sink);
    for (const status of CACHE_STATUSES) log(answered(status));
    expect(events.map((event) => event.cache_status)).to.deep.equal(['hit', 'miss', 'bypass', 'expired', 'stale', 'none']);
    expect(events[0]).to.include({ domain: 'www.example.test', path: '/a', status: 200, bytes: 10, timestamp: 1_800_000_000, client_country: 'DE', client_ip: '192.0.2.1' });
  });
});
