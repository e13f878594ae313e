import { expect } from 'chai';
import { TelemetryBuffer } from '../../../src/edge/worker/telemetry-buffer.js';
import type { ToPrimary } from '../../../src/edge/worker/messages.js';

const event = (path: string) => ({ domain: 'www.example.com', path, status: 200, bytes: 1, cache_status: 'hit', timestamp: 1, client_country: null, client_ip: '192.0.2.1' });

describe('edge worker telemetry buffer', () => {
  it('refuses usage past its share of the room left in the primary queue, counting the drops', () => {
    const sent: ToPrimary[] = [];
    const buffer = new TelemetryBuffer(3, (message) => sent.push(message));
    const accepted = [1, 2, 3, 4, 5].filter((n) => buffer.acceptsUsage() && (buffer.usage(event(`/${n}`)), true));
    buffer.stop();
    expect(accepted).to.deep.equal([1, 2, 3]);
    expect(sent).to.have.length(1);
    const message = sent[0] as Extract<ToPrimary, { t: 'telemetry' }>;
    expect(message.usage.map((item) => item.path)).to.deep.equal(['/1', '/2', '/3']);
    expect(message.dropped.usage).to.equal(2);
  });

  it('takes a new budget from the room the agent reports, never above its share', () => {
    const buffer = new TelemetryBuffer(10, () => undefined);
    buffer.setRoom({ usage: 1.5, security: 50, observations: 0 });
    expect([buffer.acceptsUsage(), buffer.acceptsUsage()]).to.deep.equal([true, false]);
    buffer.stop();
  });
});
