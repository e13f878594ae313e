// Cache semantics of a real `cdn edge` (two workers) against a real core and origin on loopback:
// RFC 9111 (private and authorized responses, Expires, invalidation by unsafe methods, strict mode)
// and RFC 9213 (CDN-Cache-Control).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';
import { EdgeProcess } from '../../support/edge-process.js';
import { createSite, publish, TestOrigin } from '../../support/edge-site.js';

const TOKEN = 'cdnedge_e2e-cache-semantics-token-0123456789';

// A small application: /cart changes on every POST or DELETE; the rest describe themselves in headers.
function application() {
  let cartVersion = 0;
  return (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const path = (req.url ?? '/').split('?')[0];
    const text = (status: number, body: string, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
    if (path === '/cart' && req.method === 'GET') return text(200, `cart v${cartVersion}`, { 'cache-control': 'max-age=3600' });
    if (path === '/cart' && req.method === 'DELETE') return text(500, 'failed');
    if (path === '/cart') {
      cartVersion++;
      return text(200, 'added');
    }
    if (path === '/checkout') {
      cartVersion++;
      return text(303, '', { location: '/cart' });
    }
    if (path.startsWith('/private/')) return text(200, `for ${req.headers.authorization ?? req.headers.cookie ?? 'nobody'}`, { 'cache-control': 'private' });
    if (path === '/targeted') return text(200, 'targeted', { 'cdn-cache-control': 'max-age=600', 'cache-control': 'no-cache' });
    if (path === '/bad-expires') return text(200, 'bad expires', { expires: '2099' });
    if (path === '/browser') return text(200, 'browser', { 'cache-control': 'max-age=60' });
    return text(200, `plain ${req.url}`);
  };
}

describe('cdn edge cache semantics (RFC 9111, RFC 9213)', function () {
  this.timeout(60000);
  let core: TestCore;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let site: Json;
  let strict: Json;

  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: TOKEN });
    origin = await TestOrigin.start('app', application());
    site = await createSite(core, 'shop.example', origin.port);
    await core.post(`/api/v1/domains/${site.id}/cache-rules`, { name: 'everything for ten minutes', match: { paths: [{ kind: 'prefix', value: '/' }] }, edge_ttl_seconds: 600 }, 201);
    strict = await createSite(core, 'strict.example', origin.port);
    await core.put(`/api/v1/domains/${strict.id}/cache/settings`, { strict_rfc9111: true });
    await core.post(`/api/v1/domains/${strict.id}/cache-rules`, { name: 'browser ttl', match: { paths: [{ kind: 'prefix', value: '/' }] }, browser_ttl_seconds: 5 }, 201);
    await publish(core);
    edge = await EdgeProcess.start({ coreUrl: core.url, token: TOKEN });
  });
  after(async () => {
    await edge?.stop();
    await origin?.stop();
    await core?.stop();
  });

  // Each request opens a connection of its own, so the two workers take turns.
  async function fourTimes(host: string, path: string): Promise<string[]> {
    const bodies: string[] = [];
    for (let index = 0; index < 4; index++) bodies.push((await edge.request(host, path)).text);
    return bodies;
  }

  it('does not serve a private response stored under an edge TTL to another visitor', async () => {
    expect((await edge.request('shop.example', '/private/account', { headers: { cookie: 'session=alice' } })).text).to.equal('for session=alice');
    const anonymous = await edge.request('shop.example', '/private/account');
    expect([anonymous.text, anonymous.headers['x-cache']]).to.deep.equal(['for nobody', 'MISS']);
    expect((await edge.request('shop.example', '/private/profile', { headers: { authorization: 'Bearer alice' } })).text).to.equal('for Bearer alice');
    expect((await edge.request('shop.example', '/private/profile')).text).to.equal('for nobody');
  });

  it('caches by CDN-Cache-Control and never sends it to the browser', async () => {
    const first = await edge.request('strict.example', '/targeted');
    const again = await fourTimes('strict.example', '/targeted');
    expect(first.headers).to.include({ 'cache-control': 'no-cache' }).and.not.to.have.property('cdn-cache-control');
    expect(again).to.deep.equal(['targeted', 'targeted', 'targeted', 'targeted']);
    expect(origin.count('/targeted')).to.be.at.most(2);
  });

  it('treats an Expires that is not an HTTP-date as already expired', async () => {
    await edge.request('strict.example', '/bad-expires');
    const second = await edge.request('strict.example', '/bad-expires');
    expect(second.headers['x-cache']).to.equal('MISS');
    expect(origin.count('/bad-expires')).to.equal(2);
  });

  it('invalidates a stored response in every worker after a successful POST to it, not after a failed DELETE', async () => {
    expect(await fourTimes('shop.example', '/cart')).to.deep.equal(['cart v0', 'cart v0', 'cart v0', 'cart v0']);
    expect(origin.count('/cart')).to.be.at.most(2);
    expect((await edge.request('shop.example', '/cart', { method: 'DELETE' })).status).to.equal(500);
    expect(await fourTimes('shop.example', '/cart')).to.deep.equal(['cart v0', 'cart v0', 'cart v0', 'cart v0']);
    expect((await edge.request('shop.example', '/cart', { method: 'POST', body: 'item=1' })).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await fourTimes('shop.example', '/cart')).to.deep.equal(['cart v1', 'cart v1', 'cart v1', 'cart v1']);
  });

  it('invalidates the Location of a 303 answering a POST', async () => {
    expect(await fourTimes('shop.example', '/cart')).to.satisfy((bodies: string[]) => new Set(bodies).size === 1);
    const before = (await edge.request('shop.example', '/cart')).text;
    expect((await edge.request('shop.example', '/checkout', { method: 'POST', body: 'pay' })).status).to.equal(303);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await fourTimes('shop.example', '/cart');
    expect(after[0]).to.not.equal(before);
    expect(new Set(after).size).to.equal(1);
  });

  it('in strict RFC 9111 mode stores nothing without freshness and passes the origin Cache-Control on', async () => {
    await edge.request('strict.example', '/plain');
    expect((await edge.request('strict.example', '/plain')).headers['x-cache']).to.equal('MISS');
    const browser = await edge.request('strict.example', '/browser');
    expect(browser.headers['cache-control']).to.equal('max-age=60');
  });
});
