import { expect } from 'chai';
import { PurgeLog } from '../../../src/edge/cache/purge-log.js';
import type { PurgeTarget } from '../../../src/edge/cache/types.js';

const page: PurgeTarget = { domainId: 'd1', host: 'www.example.com', path: '/page', query: '' };
const pathIs = (path: string) => (target: PurgeTarget) => target.path === path;

describe('edge purge log', () => {
  it('tells a fill whether a purge applied since it began covers its object', () => {
    const log = new PurgeLog();
    const before = log.position;
    expect(log.coversSince(before, page)).to.equal(false);
    log.record([pathIs('/other')]);
    expect(log.coversSince(before, page)).to.equal(false);
    log.record([pathIs('/page')]);
    expect(log.coversSince(before, page)).to.equal(true);
    expect(log.coversSince(log.position, page)).to.equal(false);
  });

  it('answers yes when more purges were applied since a fill began than it keeps', () => {
    const log = new PurgeLog();
    const before = log.position;
    for (let n = 0; n < 1100; n++) log.record([pathIs(`/other/${n}`)]);
    expect(log.coversSince(before, page)).to.equal(true);
    expect(log.coversSince(log.position - 10, page)).to.equal(false);
  });
});
