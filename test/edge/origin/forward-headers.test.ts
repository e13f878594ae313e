import { expect } from 'chai';
import type { IncomingHttpHeaders } from 'node:http';
import type { ActiveDomain } from '../../../src/edge/config/active-config.js';
import { forwardHeaders, type ForwardFacts } from '../../../src/edge/origin/forward-headers.js';
import type { SnapshotOrigin } from '../../../src/shared/snapshot.js';

const ORIGIN = { host_header: null } as SnapshotOrigin;

function facts(overrides: Partial<ForwardFacts> = {}, originShield: ActiveDomain['originShield'] = null): ForwardFacts {
  return { domain: { originShield } as ActiveDomain, clientHost: 'www.example.test', clientIp: '192.0.2.7', scheme: 'https', ...overrides };
}

// The list as [name, value] pairs, in order.
function fields(incoming: IncomingHttpHeaders, origin: SnapshotOrigin, forward: ForwardFacts): [string, string][] {
  const list = forwardHeaders(incoming, origin, forward);
  expect(list.length % 2, 'a list of name, value pairs').to.equal(0);
  return Array.from({ length: list.length / 2 }, (_, index) => [list[2 * index], list[2 * index + 1]]);
}

const valuesOf = (pairs: [string, string][], name: string) => pairs.filter(([field]) => field === name).map(([, value]) => value);

describe('the request headers an origin is sent', () => {
  it("passes the client's end-to-end headers and replaces hop-by-hop ones and what the edge vouches for", () => {
    const pairs = fields(
      { host: 'evil.test', accept: 'text/html', connection: 'keep-alive', 'keep-alive': 'timeout=5', 'proxy-connection': 'keep-alive', te: 'trailers', trailer: 'x-sum', 'transfer-encoding': 'chunked', upgrade: 'h2c', 'x-forwarded-for': '10.0.0.1', 'x-real-ip': '10.0.0.2', 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'http', 'proxy-authorization': 'Basic x', expect: '100-continue' },
      ORIGIN,
      facts(),
    );
    expect(pairs).to.deep.equal([
      ['accept', 'text/html'],
      ['x-forwarded-for', '192.0.2.7'],
      ['x-real-ip', '192.0.2.7'],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-host', 'www.example.test'],
      ['host', 'www.example.test'],
    ]);
  });

  it("sends the origin's host_header as Host when it has one", () => {
    expect(valuesOf(fields({ host: 'www.example.test' }, { host_header: 'origin.internal' } as SnapshotOrigin, facts()), 'host')).to.deep.equal(['origin.internal']);
  });

  it("keeps Content-Length only when the client framed its body by length, never beside Transfer-Encoding", () => {
    expect(valuesOf(fields({ 'content-length': '5' }, ORIGIN, facts()), 'content-length')).to.deep.equal(['5']);
    expect(valuesOf(fields({ 'content-length': '5', 'transfer-encoding': 'chunked' }, ORIGIN, facts()), 'content-length')).to.deep.equal([]);
  });

  it('sends a header Node keeps as a list when repeated (Set-Cookie) as one field per value', () => {
    expect(valuesOf(fields({ 'set-cookie': ['a=1', 'b=2'] }, ORIGIN, facts()), 'set-cookie')).to.deep.equal(['a=1', 'b=2']);
  });

  it("sends CDN-Loop once: the client's list with this edge appended", () => {
    expect(valuesOf(fields({ 'cdn-loop': 'other-cdn' }, ORIGIN, facts({ cdnLoop: 'edge-1' })), 'cdn-loop')).to.deep.equal(['other-cdn, edge-1']);
    expect(valuesOf(fields({ 'cdn-loop': 'other-cdn' }, ORIGIN, facts()), 'cdn-loop')).to.deep.equal(['other-cdn']);
    expect(valuesOf(fields({}, ORIGIN, facts({ cdnLoop: 'edge-1' })), 'cdn-loop')).to.deep.equal(['edge-1']);
  });

  it("sends the cache's validators in place of the client's", () => {
    const pairs = fields({ 'if-none-match': '"client"', accept: '*/*' }, ORIGIN, facts({ validators: { 'if-none-match': '"stored"', 'if-modified-since': 'Tue, 01 Dec 2026 00:00:00 GMT' } }));
    expect(valuesOf(pairs, 'if-none-match')).to.deep.equal(['"stored"']);
    expect(valuesOf(pairs, 'if-modified-since')).to.deep.equal(['Tue, 01 Dec 2026 00:00:00 GMT']);
  });

  it("keeps a client header named like a property every object has beside the cache's validators", () => {
    const pairs = fields({ constructor: 'x', tostring: 'y' } as IncomingHttpHeaders, ORIGIN, facts({ validators: { 'if-none-match': '"stored"' } }));
    expect([valuesOf(pairs, 'constructor'), valuesOf(pairs, 'tostring')]).to.deep.equal([['x'], ['y']]);
  });

  it("drops a client's copy of the shield header and sends the domain's secret once", () => {
    const pairs = fields({ 'x-shield': 'guessed' }, ORIGIN, facts({}, { header_name: 'X-Shield', secret: 's3cret' }));
    expect(pairs.filter(([name]) => name.toLowerCase() === 'x-shield')).to.deep.equal([['X-Shield', 's3cret']]);
    const lower = fields({ 'x-shield': 'guessed' }, ORIGIN, facts({}, { header_name: 'x-shield', secret: 's3cret' }));
    expect(valuesOf(lower, 'x-shield')).to.deep.equal(['s3cret']);
  });

  it('drops a client copy of the shield header, and sends none, when the domain has no secret', () => {
    expect(valuesOf(fields({ 'x-shield': 'guessed' }, ORIGIN, facts({}, { header_name: 'X-Shield', secret: null })), 'x-shield')).to.deep.equal([]);
  });

  it('sends a shield header named like a field the edge sets in that field\'s place, never both', () => {
    const named = (header_name: string, secret: string | null) => fields({ 'x-real-ip': '10.0.0.1' }, ORIGIN, facts({ cdnLoop: 'edge-1' }, { header_name, secret }));
    expect(valuesOf(named('x-real-ip', 's3cret'), 'x-real-ip')).to.deep.equal(['s3cret']);
    expect(valuesOf(named('host', 's3cret'), 'host')).to.deep.equal(['s3cret']);
    expect(valuesOf(named('cdn-loop', 's3cret'), 'cdn-loop')).to.deep.equal(['s3cret']);
    expect(valuesOf(named('host', null), 'host'), 'no secret: the edge sets Host').to.deep.equal(['www.example.test']);
  });

  it('keeps Connection: Upgrade and Upgrade for a WebSocket handshake, and only then', () => {
    const incoming = { connection: 'Upgrade', upgrade: 'websocket' };
    const upgraded = fields(incoming, ORIGIN, facts({ upgrade: true }));
    expect([valuesOf(upgraded, 'connection'), valuesOf(upgraded, 'upgrade')]).to.deep.equal([['Upgrade'], ['websocket']]);
    const plain = fields(incoming, ORIGIN, facts());
    expect([valuesOf(plain, 'connection'), valuesOf(plain, 'upgrade')]).to.deep.equal([[], []]);
  });
});
