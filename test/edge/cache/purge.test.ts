import { expect } from 'chai';
import { MemoryTier } from '../../../src/edge/cache/memory-tier.js';
import { applyPurges, purgedSinceStored, purgeMatches } from '../../../src/edge/cache/purge.js';
import type { PurgeTarget } from '../../../src/edge/cache/types.js';
import type { SnapshotPurge } from '../../../src/shared/snapshot.js';
import { configWith, DOMAIN_ID, entry } from './helpers.js';

const purge = (scope: string, value: string | null, domain_id = DOMAIN_ID): SnapshotPurge => ({ id: `p-${scope}-${value}`, domain_id, scope, value, created_at: 1_700_000_000 });
const object = (host: string, path: string, query = '', domainId = DOMAIN_ID): PurgeTarget => ({ domainId, host, path, query });

const table: [string, SnapshotPurge, PurgeTarget, boolean][] = [
  ['a url path on any hostname', purge('url', '/a.css'), object('www.example.com', '/a.css'), true],
  ['a url path with every query of that path', purge('url', '/a.css'), object('example.com', '/a.css', 'v=2'), true],
  ['a url path, not another path', purge('url', '/a.css'), object('example.com', '/a.css.map'), false],
  ['a url with its query only', purge('url', '/a.css?v=1'), object('example.com', '/a.css', 'v=2'), false],
  ['a url with the same query', purge('url', '/a.css?v=1'), object('example.com', '/a.css', 'v=1'), true],
  ['a full URL on its hostname, scheme ignored', purge('url', 'https://www.example.com/a.css'), object('www.example.com', '/a.css'), true],
  ['a full URL, not another hostname', purge('url', 'https://www.example.com/a.css'), object('example.com', '/a.css'), false],
  ['a full URL with a query', purge('url', 'http://example.com/s?q=1'), object('example.com', '/s', 'q=1'), true],
  ['a prefix path', purge('prefix', '/img/'), object('example.com', '/img/a/b.png', 'x=1'), true],
  ['a prefix path, outside it', purge('prefix', '/img/'), object('example.com', '/images/b.png'), false],
  ['a prefix URL', purge('prefix', 'http://cdn.example.com/img'), object('cdn.example.com', '/img/x'), true],
  ['a prefix URL, another hostname', purge('prefix', 'http://cdn.example.com/img'), object('example.com', '/img/x'), false],
  ['a domain purge: its hostname', purge('domain', 'www.example.com'), object('www.example.com', '/x'), true],
  ['a domain purge: not another hostname', purge('domain', 'www.example.com'), object('example.com', '/x'), false],
  ['a domain purge without value: the apex', purge('domain', null), object('example.com', '/x'), true],
  ['everything of the domain', purge('everything', null), object('a.example.com', '/x'), true],
  ['nothing of another domain', purge('everything', null, 'dom-2'), object('a.example.com', '/x'), false],
  ['a url path in another spelling of the stored one', purge('url', '//%61.css'), object('example.com', '/a.css'), true],
  ['a full URL in another spelling of the stored path', purge('url', 'https://www.example.com/x/../%7euser'), object('www.example.com', '/~user'), true],
  ['a full URL naming the host with a trailing dot and a port', purge('url', 'https://WWW.example.com.:443/a.css'), object('www.example.com', '/a.css'), true],
  ['a prefix path in another spelling', purge('prefix', '/img//./'), object('example.com', '/img/a.png'), true],
  ['an unparsable value matches nothing', purge('url', 'not a url'), object('example.com', '/x'), false],
  ['an unknown scope matches nothing', purge('tag', 'x'), object('example.com', '/x'), false],
];

describe('edge cache purges', () => {
  for (const [name, rule, target, expected] of table) {
    it(`matches ${name}: ${expected}`, () => {
      expect(purgeMatches(rule, 'example.com', target)).to.equal(expected);
    });
  }

  it('removes matching objects from a memory tier, and removes nothing the second time', () => {
    const memory = new MemoryTier(1024 * 1024);
    memory.set(entry('a', 10, { path: '/img/a.png' }));
    memory.set(entry('b', 10, { path: '/css/b.css' }));
    memory.set(entry('c', 10, { path: '/img/c.png', domainId: 'dom-2' }));
    const purges = [purge('prefix', '/img/')];
    expect(applyPurges(purges, memory, configWith())).to.equal(1);
    expect(applyPurges(purges, memory, configWith())).to.equal(0);
    expect(memory.count).to.equal(2);
  });

  it('treats an object fetched before a purge of the active config as purged, and a later one as not', () => {
    const config = configWith({ purges: [purge('everything', null)] });
    expect(purgedSinceStored(entry('a', 1, { fetchedAt: 1_699_999_000_000 }), config)).to.equal(true);
    expect(purgedSinceStored(entry('a', 1, { fetchedAt: 1_700_000_000_500 }), config)).to.equal(true);
    expect(purgedSinceStored(entry('a', 1, { fetchedAt: 1_700_000_001_000 }), config)).to.equal(false);
  });
});
