import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';

type Answer = { status: number; body: Json };

function statusCounts(answers: Answer[]): string {
  const counts = new Map<number, number>();
  for (const answer of answers) counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count} × ${status}`).join(', ');
}

const PARALLEL = 50;
const RULE_BODIES: Record<string, Record<string, unknown>> = {
  redirects: { target: '/new' },
  'rate-limits': { requests: 10, period_seconds: 60 },
  'waf-rules': {},
  headers: { header_name: 'X-Race', value: 'on' },
  'ip-rules': { cidr: '192.0.2.0/24' },
  'cache-rules': {},
  'page-rules': { url_pattern: 'race.example/*', settings: { cache_level: 'bypass' } },
};

// Every write rule that the service checks before writing must hold when the same
// write arrives many times at once: one request wins, the others get exactly the
// 422 a sequential duplicate gets, and storage holds one of it.
describe('uniqueness and zone rules under concurrent writes', function () {
  this.timeout(120000);
  let core: TestCore;
  before(async () => {
    core = await TestCore.start();
    // Bursts overlap only once database connections and sockets exist: open them with a burst that breaks no rule.
    const warmup = (await core.createDomain('warmup-race.example')).id;
    await together(PARALLEL, (index) => send('POST', `/api/v1/domains/${warmup}/dns/records`, { type: 'TXT', name: `w${index}`, content: 'warm' }));
  });
  after(async () => {
    await core.stop();
  });

  const send = async (method: string, path: string, body: unknown): Promise<Answer> => {
    const response = await fetch(`${core.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };
  const together = (count: number, request: (index: number) => Promise<Answer>) => Promise.all(Array.from({ length: count }, (_unused, index) => request(index)));

  /** Asserts one `winner` answer and identical 422s for the rest, equal to what a losing request gets when sent again alone. */
  const expectOneWinner = async (answers: Answer[], winner: number, again: (loser: number) => Promise<Answer>) => {
    expect(answers.map((answer) => answer.status).sort(), `statuses: ${statusCounts(answers)}`).to.deep.equal([winner, ...Array(answers.length - 1).fill(422)]);
    const losers = answers.filter((answer) => answer.status === 422).map((answer) => JSON.stringify(answer.body));
    expect(new Set(losers).size, [...new Set(losers)].join('\n')).to.equal(1);
    const sequential = await again(answers.findIndex((answer) => answer.status === 422));
    expect(sequential.status).to.equal(422);
    expect(JSON.parse(losers[0])).to.deep.equal(sequential.body);
    expect(sequential.body.field).to.be.a('string');
  };

  const newDomain = async (apex: string) => (await core.createDomain(apex)).id as string;
  const recordsNamed = async (domainId: string, name: string) => core.db.dnsRecord.findMany({ where: { domain_id: domainId, name } });

  describe('creates', () => {
    it('stores one of 50 identical TXT records', async () => {
      const domainId = await newDomain('txt-race.example');
      const create = () => send('POST', `/api/v1/domains/${domainId}/dns/records`, { type: 'TXT', name: 'race', content: 'v=race1' });
      await expectOneWinner(await together(PARALLEL, create), 201, create);
      expect(await recordsNamed(domainId, 'race')).to.have.length(1);
    });

    it('stores one of 50 CNAMEs with different targets at one name', async () => {
      const domainId = await newDomain('cname-race.example');
      const create = (index: number) => send('POST', `/api/v1/domains/${domainId}/dns/records`, { type: 'CNAME', name: 'alias', content: `target-${index}.example.net` });
      await expectOneWinner(await together(PARALLEL, create), 201, create);
      expect(await recordsNamed(domainId, 'alias')).to.have.length(1);
    });

    it('never stores an A record beside a CNAME when both are created at once', async () => {
      const domainId = await newDomain('mixed-race.example');
      const answers = await together(PARALLEL, (index) =>
        send('POST', `/api/v1/domains/${domainId}/dns/records`, index % 2 ? { type: 'A', name: 'mixed', content: `192.0.2.${index}` } : { type: 'CNAME', name: 'mixed', content: `target-${index}.example.net` }),
      );
      expect(statusCounts(answers)).to.match(/^(\d+ × (201|422)(, |$))+$/);
      const stored = await recordsNamed(domainId, 'mixed');
      const cnames = stored.filter((record) => record.type === 'CNAME');
      expect(cnames.length === 0 || stored.length === 1, JSON.stringify(stored.map((record) => record.type))).to.equal(true);
      expect(answers.filter((answer) => answer.status === 201)).to.have.length(stored.length);
    });

    it('stores one of 50 origins with the same scheme, host and port', async () => {
      const domainId = await newDomain('origin-race.example');
      const create = () => send('POST', `/api/v1/domains/${domainId}/origins`, { host: 'origin.race.example.net', port: 8443 });
      await expectOneWinner(await together(PARALLEL, create), 201, create);
      expect(await core.db.origin.count({ where: { domain_id: domainId } })).to.equal(1);
    });

    it('stores one of 50 domains with the same apex', async () => {
      const create = () => send('POST', '/api/v1/domains', { domain: 'apex-race.example' });
      await expectOneWinner(await together(PARALLEL, create), 201, create);
      expect(await core.db.domain.count({ where: { domain: 'apex-race.example' } })).to.equal(1);
    });

    for (const [kind, body] of Object.entries(RULE_BODIES)) {
      it(`stores one of 50 ${kind} with the same name`, async () => {
        const domainId = await newDomain(`${kind}-race.example`);
        const create = () => send('POST', `/api/v1/domains/${domainId}/${kind}`, { name: 'twin', ...body });
        await expectOneWinner(await together(PARALLEL, create), 201, create);
        expect((await core.get(`/api/v1/domains/${domainId}/${kind}`)).data).to.have.length(1);
      });
    }

    it('imports one of 50 identical redirect imports', async () => {
      const domainId = await newDomain('import-race.example');
      const importRules = () => send('POST', `/api/v1/domains/${domainId}/redirects/import`, { format: 'json', rules: [{ name: 'imported', target: '/new' }] });
      await expectOneWinner(await together(PARALLEL, importRules), 200, importRules);
      expect((await core.get(`/api/v1/domains/${domainId}/redirects`)).data).to.have.length(1);
    });
  });

  describe('patches', () => {
    it('lets one of 50 TXT records become identical to the others', async () => {
      const domainId = await newDomain('txt-patch-race.example');
      const ids: string[] = [];
      for (let index = 0; index < PARALLEL; index += 1) ids.push((await core.post(`/api/v1/domains/${domainId}/dns/records`, { type: 'TXT', name: `t${index}`, content: `v=${index}` }, 201)).data.id);
      const patch = (index: number) => send('PATCH', `/api/v1/domains/${domainId}/dns/records/${ids[index]}`, { name: 'same', content: 'v=same' });
      await expectOneWinner(await together(PARALLEL, patch), 200, patch);
      expect(await recordsNamed(domainId, 'same')).to.have.length(1);
    });

    it('lets one of 50 CNAMEs move to one name', async () => {
      const domainId = await newDomain('cname-patch-race.example');
      const ids: string[] = [];
      for (let index = 0; index < PARALLEL; index += 1) ids.push((await core.post(`/api/v1/domains/${domainId}/dns/records`, { type: 'CNAME', name: `c${index}`, content: `t${index}.example.net` }, 201)).data.id);
      const patch = (index: number) => send('PATCH', `/api/v1/domains/${domainId}/dns/records/${ids[index]}`, { name: 'shared' });
      await expectOneWinner(await together(PARALLEL, patch), 200, patch);
      expect(await recordsNamed(domainId, 'shared')).to.have.length(1);
    });

    it('never leaves an A record beside a CNAME when both move to one name at once', async () => {
      const domainId = await newDomain('mixed-patch-race.example');
      const ids: string[] = [];
      for (let index = 0; index < PARALLEL; index += 1) {
        const body = index % 2 ? { type: 'A', name: `a${index}`, content: `192.0.2.${index}` } : { type: 'CNAME', name: `c${index}`, content: `t${index}.example.net` };
        ids.push((await core.post(`/api/v1/domains/${domainId}/dns/records`, body, 201)).data.id);
      }
      const answers = await together(PARALLEL, (index) => send('PATCH', `/api/v1/domains/${domainId}/dns/records/${ids[index]}`, { name: 'meet' }));
      expect(statusCounts(answers)).to.match(/^(\d+ × (200|422)(, |$))+$/);
      const stored = await recordsNamed(domainId, 'meet');
      expect(stored.every((record) => record.type === 'A') || stored.length === 1, JSON.stringify(stored.map((record) => record.type))).to.equal(true);
    });

    it('lets one of 50 origins take the same scheme, host and port', async () => {
      const domainId = await newDomain('origin-patch-race.example');
      const ids: string[] = [];
      for (let index = 0; index < PARALLEL; index += 1) ids.push((await core.post(`/api/v1/domains/${domainId}/origins`, { host: `o${index}.example.net` }, 201)).data.id);
      const patch = (index: number) => send('PATCH', `/api/v1/domains/${domainId}/origins/${ids[index]}`, { host: 'same.example.net' });
      await expectOneWinner(await together(PARALLEL, patch), 200, patch);
      expect(await core.db.origin.count({ where: { domain_id: domainId, host: 'same.example.net' } })).to.equal(1);
    });

    it('lets one of 50 rules take the same name', async () => {
      const domainId = await newDomain('rule-patch-race.example');
      const ids: string[] = [];
      for (let index = 0; index < PARALLEL; index += 1) ids.push((await core.post(`/api/v1/domains/${domainId}/redirects`, { name: `r${index}`, target: '/new' }, 201)).data.id);
      const patch = (index: number) => send('PATCH', `/api/v1/domains/${domainId}/redirects/${ids[index]}`, { name: 'same' });
      await expectOneWinner(await together(PARALLEL, patch), 200, patch);
      expect(await core.db.redirectRule.count({ where: { domain_id: domainId, name: 'same' } })).to.equal(1);
    });

    it('lets one of 50 domains move to the same apex', async () => {
      const ids: string[] = [];
      for (let index = 0; index < PARALLEL; index += 1) ids.push(await newDomain(`move${index}.example`));
      const patch = (index: number) => send('PATCH', `/api/v1/domains/${ids[index]}`, { domain: 'moved-race.example' });
      await expectOneWinner(await together(PARALLEL, patch), 200, patch);
      expect(await core.db.domain.count({ where: { domain: 'moved-race.example' } })).to.equal(1);
    });
  });

  describe('replacing writes', () => {
    it('keeps one set of geo routes after 50 identical replacements', async () => {
      const domainId = await newDomain('geo-race.example');
      const record = (await core.post(`/api/v1/domains/${domainId}/dns/records`, { type: 'A', name: 'www', content: '192.0.2.1' }, 201)).data;
      const routes = [{ scope: 'country', code: 'DE', target: '192.0.2.2' }, { scope: 'default', target: '192.0.2.3' }];
      const answers = await together(PARALLEL, () => send('PUT', `/api/v1/domains/${domainId}/dns/records/${record.id}/geo-routes`, { routes }));
      expect(statusCounts(answers), JSON.stringify(answers.find((answer) => answer.status !== 200))).to.equal(`${PARALLEL} × 200`);
      expect(await core.db.geoRoute.count({ where: { record_id: record.id } })).to.equal(2);
    });

    it('keeps one legacy rate limit after 50 identical PUTs', async () => {
      const domainId = await newDomain('legacy-race.example');
      const answers = await together(PARALLEL, () => send('PUT', `/api/v1/domains/${domainId}/rate-limit`, { requests: 100, period_seconds: 60 }));
      expect(statusCounts(answers), JSON.stringify(answers.find((answer) => answer.status !== 200))).to.equal(`${PARALLEL} × 200`);
      expect(await core.db.rateLimitRule.count({ where: { domain_id: domainId } })).to.equal(1);
    });

    it('answers 50 identical cache settings PUTs with 200', async () => {
      const domainId = await newDomain('cache-race.example');
      const answers = await together(PARALLEL, () => send('PUT', `/api/v1/domains/${domainId}/cache/settings`, { default_edge_ttl_seconds: 600 }));
      expect(statusCounts(answers), JSON.stringify(answers.find((answer) => answer.status !== 200))).to.equal(`${PARALLEL} × 200`);
      expect(await core.db.cacheSettings.count({ where: { domain_id: domainId } })).to.equal(1);
    });

    it('answers 50 identical SSL settings PATCHes with 200', async () => {
      const domainId = await newDomain('ssl-race.example');
      const answers = await together(PARALLEL, () => send('PATCH', `/api/v1/domains/${domainId}/ssl/settings`, { mode: 'strict' }));
      expect(statusCounts(answers), JSON.stringify(answers.find((answer) => answer.status !== 200))).to.equal(`${PARALLEL} × 200`);
      expect(await core.db.sslSettings.count({ where: { domain_id: domainId } })).to.equal(1);
    });

    it('answers 50 identical settings PATCHes with 200', async () => {
      const answers = await together(PARALLEL, () => send('PATCH', '/api/v1/settings/analytics', { top_paths: 20 }));
      expect(statusCounts(answers), JSON.stringify(answers.find((answer) => answer.status !== 200))).to.equal(`${PARALLEL} × 200`);
      expect(await core.db.setting.count({ where: { group: 'analytics', key: 'top_paths' } })).to.equal(1);
    });
  });
});
