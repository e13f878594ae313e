import { expect } from 'chai';
import { TelemetryBuffer } from '../../../src/edge/worker/telemetry-buffer.js';
import { CLIENT_IP_EVENTS_PER_FLUSH } from '../../../src/edge/worker/usage-aggregator.js';
import type { ToPrimary, UsageEvent } from '../../../src/edge/worker/messages.js';

type Telemetry = Extract<ToPrimary, { t: 'telemetry' }>;

const request = (extra: Partial<UsageEvent> = {}): UsageEvent => ({ domain: 'www.example.com', path: '/', status: 200, bytes: 10, cache_status: 'hit', timestamp: 1000, client_country: 'DE', client_ip: '192.0.2.1', ...extra });

/** Feeds `requests` to a buffer with `share` and `room`, and returns the one telemetry message it sends on stop. */
function flushed(requests: UsageEvent[], share = 1000, room?: number): Telemetry {
  const sent: ToPrimary[] = [];
  const buffer = new TelemetryBuffer(share, (message) => sent.push(message));
  if (room !== undefined) buffer.setRoom({ usage: room, security: share, observations: share });
  for (const item of requests) buffer.usage(item);
  buffer.stop();
  expect(sent).to.have.length(1);
  return sent[0] as Telemetry;
}

const totalOf = (events: UsageEvent[]) => ({ requests: events.reduce((sum, event) => sum + (event.count ?? 1), 0), bytes: events.reduce((sum, event) => sum + event.bytes, 0) });

describe('edge worker telemetry buffer', () => {
  it('sends alike requests of one flush as one event with their count and summed bytes', () => {
    const message = flushed([request({ bytes: 1 }), request({ bytes: 2 }), request({ bytes: 3 }), request({ status: 404 }), request({ timestamp: 1001 }), request({ client_country: null })]);
    expect(message.usage).to.have.length(4);
    expect(message.usage[0]).to.deep.equal({ ...request({ bytes: 6 }), count: 3 });
    expect(message.usage.slice(1).map((event) => event.count)).to.deep.equal([1, 1, 1]);
    expect(message.usageTally).to.deep.equal({ requests: 6, with_client_ip: 6, without_path: 0 });
    expect(message.dropped.usage).to.equal(0);
  });

  it('keeps requests of other hosts, cache statuses or addresses on the same path apart, and joins each to its own', () => {
    const message = flushed([request(), request({ domain: 'example.com' }), request({ cache_status: 'miss' }), request({ client_ip: '192.0.2.2' }), request({ domain: 'example.com' }), request()]);
    expect(message.usage.map((event) => [event.domain, event.cache_status, event.client_ip, event.count])).to.deep.equal([
      ['www.example.com', 'hit', '192.0.2.1', 2],
      ['example.com', 'hit', '192.0.2.1', 2],
      ['www.example.com', 'miss', '192.0.2.1', 1],
      ['www.example.com', 'hit', '192.0.2.2', 1],
    ]);
  });

  it('counts every request past its room, the new paths under /(other) of their domain, status, cache status, country and second', () => {
    const requests = Array.from({ length: 10 }, (_, n) => request({ path: `/${n}`, bytes: n, client_ip: null }));
    const message = flushed([...requests, request({ path: '/9', status: 500, client_ip: null })], 3);
    expect(message.usage.map((event) => [event.path, event.status, event.count])).to.deep.equal([
      ['/0', 200, 1],
      ['/1', 200, 1],
      ['/2', 200, 1],
      ['/(other)', 200, 7],
      ['/(other)', 500, 1],
    ]);
    expect(totalOf(message.usage)).to.deep.equal({ requests: 11, bytes: 55 });
    expect(message.dropped.usage, 'requests counted without their path').to.equal(8);
  });

  it('keeps the client address on a bounded number of new events a flush, and counts the rest of the requests without it', () => {
    const clients = CLIENT_IP_EVENTS_PER_FLUSH + 50;
    const message = flushed(Array.from({ length: clients }, (_, n) => request({ client_ip: `10.0.${n >> 8}.${n & 255}` })), 10 * clients);
    const withAddress = message.usage.filter((event) => event.client_ip);
    expect(withAddress).to.have.length(CLIENT_IP_EVENTS_PER_FLUSH);
    expect(message.usage.filter((event) => !event.client_ip)).to.deep.equal([{ ...request({ client_ip: null, bytes: 500 }), count: 50 }]);
    expect(message.usageTally).to.deep.equal({ requests: clients, with_client_ip: CLIENT_IP_EVENTS_PER_FLUSH, without_path: 0 });
  });

  it('takes a new budget from the room the agent reports, never above its share, and counts requests when there is none', () => {
    expect(flushed([request({ path: '/a' }), request({ path: '/b' })], 10, 1.5).usage.map((event) => [event.path, event.count])).to.deep.equal([
      ['/a', 1],
      ['/(other)', 1],
    ]);
    expect(flushed([request({ path: '/a' }), request({ path: '/b' }), request({ path: '/c' })], 2, 50).usage.map((event) => event.path)).to.deep.equal(['/a', '/b', '/(other)']);
    expect(totalOf(flushed([request(), request({ path: '/b' })], 10, 0).usage)).to.deep.equal({ requests: 2, bytes: 20 });
  });

  it('sends nothing when nothing was counted', () => {
    const sent: ToPrimary[] = [];
    new TelemetryBuffer(10, (message) => sent.push(message)).stop();
    expect(sent).to.deep.equal([]);
  });
});
