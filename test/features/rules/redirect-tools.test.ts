import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

describe('redirect import/export, rule tests and the legacy rate limit', () => {
  let core: TestCore;
  let domain: Json;
  let base: string;
  before(async () => {
    core = await TestCore.start();
    domain = await core.createDomain('tools.example');
    base = `/api/v1/domains/${domain.id}`;
  });
  after(async () => {
    await core.stop();
  });

  const CSV = 'source,target,status_code,preserve_query\n/old,/new,301,true\n^/blog/(\\d+)$,https://blog.tools.example/p/$1,308,false\nhttps://www.tools.example/a/*,/b/$1,302,\n';

  it('imports CSV redirects and serves them in the redirect test', async () => {
    const result = (await core.post(`${base}/redirects/import`, { format: 'csv', csv: CSV })).data;
    expect(result).to.deep.equal({ imported: 3, mode: 'append', total: 3 });
    const test = (await core.post(`${base}/redirects/test`, { url: 'https://tools.example/blog/42?x=1' })).data;
    expect(test).to.include({ matched: true, status_code: 308, location: 'https://blog.tools.example/p/42' });
    const withQuery = (await core.post(`${base}/redirects/test`, { url: 'https://tools.example/old?utm=a' })).data;
    expect(withQuery.location).to.equal('/new?utm=a');
    const wildcard = (await core.post(`${base}/redirects/test`, { url: 'https://WWW.tools.example/a/deep/page' })).data;
    expect(wildcard).to.include({ status_code: 302, location: '/b/deep/page' });
    expect((await core.post(`${base}/redirects/test`, { url: 'https://tools.example/other' })).data.matched).to.equal(false);
  });

  it('reads a test URL\'s path as the edge reads a request\'s: every spelling of /old is /old', async () => {
    for (const url of ['https://tools.example//old', 'https://tools.example/x/../%6fld', 'https://tools.example/%2e/old', 'https://TOOLS.example.:443/old;v=1']) {
      expect((await core.post(`${base}/redirects/test`, { url })).data, url).to.include({ matched: true, location: '/new' });
    }
    expect((await core.post(`${base}/redirects/test`, { url: 'https://tools.example/old%FF' })).data.matched).to.equal(false);
  });

  it('rejects a whole import with every bad line listed and writes nothing', async () => {
    const before = await core.db.redirectRule.count();
    const bad = 'source,target,status_code\n/fine,/ok,301\n/x,ftp://nope,301\n/y,/z,303\n/old,/dup,301\n';
    const error = await core.post(`${base}/redirects/import`, { format: 'csv', csv: bad }, 422);
    expect(error.error).to.equal('import rejected');
    expect(error.errors.map((e: Json) => [e.line, e.field])).to.deep.equal([[3, 'target'], [4, 'status_code'], [5, 'name']]);
    expect(await core.db.redirectRule.count()).to.equal(before);
  });

  it('reports a name clash with an existing redirect when appending', async () => {
    const error = await core.post(`${base}/redirects/import`, { format: 'json', rules: [{ name: 'redirect /old', target: '/again' }] }, 422);
    expect(error.errors).to.deep.equal([{ line: 1, field: 'name', detail: 'the name "redirect /old" is used twice' }]);
  });

  it('rejects an unknown CSV column', async () => {
    expect((await core.post(`${base}/redirects/import`, { format: 'csv', csv: 'from,to\n/a,/b\n' }, 422)).field).to.equal('csv');
  });

  it('exports as JSON and CSV, and a JSON export re-imports in replace mode to the same set', async () => {
    const json = (await core.get(`${base}/redirects/export`)).data;
    expect(json).to.include({ format: 'json', count: 3 });
    const csv = (await core.get(`${base}/redirects/export?format=csv`)).data;
    expect(csv.csv.split('\n')[0]).to.equal('source,target,status_code,preserve_query,preserve_path,name,priority');
    expect(csv.count).to.equal(3);
    await core.post(`${base}/redirects/import`, { format: 'json', mode: 'replace', rules: json.rules });
    expect((await core.get(`${base}/redirects/export`)).data.rules).to.deep.equal(json.rules);
    await core.get(`${base}/redirects/export?format=xml`, 422);
  });

  it('tests page rules: URL pattern, extra match and forwarding with captures', async () => {
    await core.post(`${base}/page-rules`, { name: 'forward', priority: 1, url_pattern: 'tools.example/go/*', settings: { forwarding_url: { url: 'https://dest.example/$1', status_code: 302 } } }, 201);
    await core.post(`${base}/page-rules`, { name: 'images', priority: 2, url_pattern: '*tools.example/img/*', match: { methods: ['GET'] }, settings: { cache_level: 'cache_everything' } }, 201);
    const forward = (await core.post(`${base}/page-rules/test`, { url: 'https://tools.example/go/docs' })).data;
    expect(forward.forwarding).to.deep.equal({ status_code: 302, location: 'https://dest.example/docs' });
    const image = (await core.post(`${base}/page-rules/test`, { url: 'https://cdn.tools.example/img/a.png' })).data;
    expect(image).to.include({ matched: true });
    expect(image.settings).to.deep.equal({ cache_level: 'cache_everything' });
    expect((await core.post(`${base}/page-rules/test`, { url: 'https://cdn.tools.example/img/a.png', method: 'POST' })).data.matched).to.equal(false);
    expect((await core.post(`${base}/page-rules/test`, { url: 'not a url' }, 422)).field).to.equal('url');
  });

  it('answers URLs the rule testers cannot parse with 422 naming url and changes nothing', async () => {
    const before = await core.rowCounts();
    for (const tester of ['redirects/test', 'page-rules/test']) {
      for (const url of ['http://tools.example:99999/', 'https://tools.example/%zz', 'https://tools.example/100%', 'http://tools\u0000.example/']) {
        expect((await core.post(`${base}/${tester}`, { url }, 422)).field, `${tester} ${url}`).to.equal('url');
      }
    }
    expect(await core.rowCounts()).to.deep.equal(before);
  });

  it('keeps the legacy rate limit as a view over one rate-limit rule', async () => {
    expect((await core.get(`${base}/rate-limit`)).data).to.deep.equal({ enabled: false });
    const put = (await core.put(`${base}/rate-limit`, { requests: 100, period_seconds: 60, action: 'challenge', challenge_difficulty: 2 })).data;
    expect(put).to.include({ enabled: true, requests: 100, period_seconds: 60, action: 'challenge', challenge_difficulty: 2, name: 'legacy rate limit' });
    const replaced = (await core.put(`${base}/rate-limit`, { requests: 5, period_seconds: 10 })).data;
    expect(replaced).to.include({ id: put.id, requests: 5, action: 'block', challenge_difficulty: null });
    expect((await core.get(`${base}/rate-limits`)).data.map((rule: Json) => rule.id)).to.include(put.id);
    expect(await core.delete(`${base}/rate-limit`)).to.deep.equal({ ok: true });
    expect((await core.get(`${base}/rate-limit`)).data).to.include({ enabled: false, id: put.id });
    expect((await core.put(`${base}/rate-limit`, { requests: 0, period_seconds: 10 }, 422)).field).to.equal('requests');
    await core.get('/api/v1/domains/missing/rate-limit', 404);
  });
});
