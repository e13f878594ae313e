import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

const apexesOf = (answer: Json) => answer.data.map((item: Json) => item.domain.domain);

describe('bulk domain export filtered by apex (domains=)', () => {
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
    for (const apex of ['one.filter.example', 'two.filter.example', 'three.filter.example']) await core.createDomain(apex);
  });
  after(async () => {
    await core.stop();
  });

  it('returns only the named domains, oldest first, and ignores names that do not exist', async () => {
    expect(apexesOf(await core.get('/api/v1/export/domains?domains=three.filter.example,one.filter.example,missing.filter.example'))).to.deep.equal(['one.filter.example', 'three.filter.example']);
  });

  it('matches names as domains are stored (lower case, no trailing dot)', async () => {
    expect(apexesOf(await core.get('/api/v1/export/domains?domains=TWO.filter.example.'))).to.deep.equal(['two.filter.example']);
  });

  it('pages a filtered export with limit and offset', async () => {
    expect(apexesOf(await core.get('/api/v1/export/domains?domains=one.filter.example,two.filter.example&limit=1&offset=1'))).to.deep.equal(['two.filter.example']);
  });

  it('accepts 100 names', async () => {
    const names = Array.from({ length: 99 }, (_, index) => `n${index}.filter.example`).concat('one.filter.example');
    expect(apexesOf(await core.get(`/api/v1/export/domains?domains=${names.join(',')}`))).to.deep.equal(['one.filter.example']);
  });

  for (const [label, query] of [
    ['more than 100 names', Array.from({ length: 101 }, (_, index) => `n${index}.filter.example`).join(',')],
    ['an empty filter', ''],
    ['an empty name', 'one.filter.example,'],
    ['a name that is not an apex hostname', 'not_a host'],
    ['a single label', 'localhost'],
    ['a numeric top-level label', '192.0.2.1'],
  ]) {
    it(`refuses ${label} with 422 on domains`, async () => {
      expect((await core.get(`/api/v1/export/domains?domains=${encodeURIComponent(query)}`, 422)).field).to.equal('domains');
    });
  }

  it('refuses a repeated domains parameter with 422 on domains', async () => {
    expect((await core.get('/api/v1/export/domains?domains=one.filter.example&domains=two.filter.example', 422)).field).to.equal('domains');
  });
});
