import { expect } from 'chai';
import { TestCore, type Json } from '../../support/core.js';

// One valid body per kind, and per kind the invalid variations with the field each must name.
const KINDS: { path: string; valid: Json; invalid: [string, Json][] }[] = [
  {
    path: 'redirects',
    valid: { name: 'old blog', match: { paths: [{ kind: 'regex', value: '^/blog/(\\d+)$' }] }, target: 'https://blog.example.com/posts/$1', status_code: 308 },
    invalid: [
      ['target', { name: 'x', target: 'ftp://example.com/' }],
      ['status_code', { name: 'x', target: '/new', status_code: 303 }],
      ['target', { name: 'x' }],
    ],
  },
  {
    path: 'rate-limits',
    valid: { name: 'login', match: { paths: [{ kind: 'prefix', value: '/login' }], methods: ['POST'] }, requests: 10, period_seconds: 60, action: 'challenge', challenge_difficulty: 4 },
    invalid: [
      ['requests', { name: 'x', requests: 0, period_seconds: 60 }],
      ['period_seconds', { name: 'x', requests: 5, period_seconds: 86401 }],
      ['key_header', { name: 'x', requests: 5, period_seconds: 60, key: 'header' }],
      ['challenge_difficulty', { name: 'x', requests: 5, period_seconds: 60, action: 'block', challenge_difficulty: 3 }],
      ['challenge_difficulty', { name: 'x', requests: 5, period_seconds: 60, action: 'challenge', challenge_difficulty: 7 }],
    ],
  },
  {
    path: 'waf-rules',
    valid: { name: 'managed', signatures: ['sqli', 'xss'], action: 'block' },
    invalid: [
      ['signatures.0', { name: 'x', signatures: ['ddos'] }],
      ['action', { name: 'x', action: 'drop' }],
    ],
  },
  {
    path: 'headers',
    valid: { name: 'hsts', phase: 'response', operation: 'set', header_name: 'Strict-Transport-Security', value: 'max-age=31536000' },
    invalid: [
      ['value', { name: 'x', header_name: 'X-A' }],
      ['header_name', { name: 'x', header_name: 'Content-Length', value: '1' }],
      ['header_name', { name: 'x', header_name: 'bad header', value: '1' }],
      ['value', { name: 'x', header_name: 'X-A', operation: 'remove', value: 'y' }],
    ],
  },
  {
    path: 'ip-rules',
    valid: { name: 'office', cidr: '2001:DB8:0:0:1::/64', action: 'allow' },
    invalid: [
      ['cidr', { name: 'x', cidr: '300.0.0.0/8' }],
      ['action', { name: 'x', cidr: '192.0.2.0/24', action: 'log' }],
    ],
  },
  {
    path: 'cache-rules',
    valid: { name: 'assets', match: { paths: [{ kind: 'wildcard', value: '*.css' }] }, edge_ttl_seconds: 86400, cache_key: { query_strings: { mode: 'include', names: ['v'] }, country: true }, stale_if_error_seconds: 300 },
    invalid: [
      ['cache_key.query_strings.names', { name: 'x', cache_key: { query_strings: { mode: 'exclude' } } }],
      ['edge_ttl_seconds', { name: 'x', edge_ttl_seconds: -1 }],
      ['action', { name: 'x', action: 'bypass', edge_ttl_seconds: 60 }],
      ['cache_private', { name: 'x', cache_private: 'yes' }],
    ],
  },
  {
    path: 'page-rules',
    valid: { name: 'images', url_pattern: '*.example.com/images/*', settings: { cache_level: 'cache_everything', edge_cache_ttl_seconds: 3600, always_use_https: true } },
    invalid: [
      ['url_pattern', { name: 'x', url_pattern: 'https://example.com/*', settings: { always_use_https: true } }],
      ['settings', { name: 'x', url_pattern: 'example.com/*', settings: {} }],
      ['settings.forwarding_url', { name: 'x', url_pattern: 'example.com/*', settings: { forwarding_url: { url: 'https://a.example/' }, always_use_https: true } }],
      ['settings.cache_level', { name: 'x', url_pattern: 'example.com/*', settings: { cache_level: 'aggressive' } }],
    ],
  },
];

describe('traffic rules API', () => {
  let core: TestCore;
  let domain: Json;
  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: 'rules-token' });
    core.token = 'rules-token';
    domain = await core.createDomain('rules.example');
  });
  after(async () => {
    await core.stop();
  });

  const changeSeq = async () => Number((await core.db.publishState.findUnique({ where: { id: 1 } }))?.change_seq ?? 0);

  for (const kind of KINDS) {
    describe(kind.path, () => {
      const base = () => `/api/v1/domains/${domain.id}/${kind.path}`;

      it('creates, lists, patches and deletes a rule, marking the config dirty each time', async () => {
        const before = await changeSeq();
        const rule = (await core.post(base(), kind.valid, 201)).data;
        expect(rule).to.include({ domain_id: domain.id, name: kind.valid.name, enabled: true, priority: 1000 });
        expect(rule.created_at).to.be.a('number');
        expect((await core.get(base())).data.map((r: Json) => r.id)).to.include(rule.id);
        const patched = (await core.patch(`${base()}/${rule.id}`, { priority: 5, enabled: false })).data;
        expect(patched).to.include({ priority: 5, enabled: false, name: kind.valid.name });
        expect(await core.delete(`${base()}/${rule.id}`)).to.deep.equal({ ok: true });
        expect(await changeSeq()).to.equal(before + 3);
      });

      for (const [field, body] of kind.invalid) {
        it(`rejects ${JSON.stringify(body)} with 422 on ${field} and changes nothing`, async () => {
          const before = await changeSeq();
          expect((await core.post(base(), body, 422)).field).to.equal(field);
          expect(await changeSeq()).to.equal(before);
        });
      }

      it('rejects a duplicate name, an unknown field and a regex RE2 cannot run with 422', async () => {
        const rule = (await core.post(base(), { ...kind.valid, name: 'twin' }, 201)).data;
        expect((await core.post(base(), { ...kind.valid, name: 'twin' }, 422)).field).to.equal('name');
        expect((await core.post(base(), { ...kind.valid, name: 'other', colour: 'red' }, 422)).field).to.equal('colour');
        const evil = { ...kind.valid, name: 'evil', match: { paths: [{ kind: 'regex', value: '^(a+)\\1$' }] } };
        expect((await core.post(base(), evil, 422)).field).to.equal('match.paths.0.value');
        expect((await core.patch(`${base()}/${rule.id}`, { match: { countries: ['ZZ'] } }, 422)).field).to.equal('match.countries.0');
        await core.delete(`${base()}/${rule.id}`);
      });

      it('answers 404 for an unknown domain or rule and 401 without the token', async () => {
        await core.get(`/api/v1/domains/missing/${kind.path}`, 404);
        await core.post(`/api/v1/domains/missing/${kind.path}`, kind.valid, 404);
        await core.patch(`${base()}/missing`, { priority: 1 }, 404);
        await core.delete(`${base()}/missing`, 404);
        await core.get(base(), 401, { token: 'wrong' });
      });
    });
  }

  it('lists rules in evaluation order: priority, then name', async () => {
    const base = `/api/v1/domains/${domain.id}/headers`;
    for (const [name, priority] of [['b', 10], ['a', 10], ['c', 1]] as const) {
      await core.post(base, { name, priority, header_name: 'X-Order', value: name }, 201);
    }
    expect((await core.get(base)).data.map((rule: Json) => rule.name)).to.deep.equal(['c', 'a', 'b']);
  });

  it('refuses a header value outside visible ASCII, which HTTP cannot carry as text', async () => {
    const base = `/api/v1/domains/${domain.id}/headers`;
    const refused = await core.post(base, { name: 'tick', header_name: 'X-Check', value: 'ok \u2713' }, 422);
    expect(JSON.stringify(refused)).to.include('value must be ASCII text');
    await core.post(base, { name: 'latin', header_name: 'X-Check', value: 'caf\u00e9' }, 422);
    const rule = (await core.post(base, { name: 'ascii', header_name: 'X-Check', value: 'ok ~!' }, 201)).data;
    await core.patch(`${base}/${rule.id}`, { value: 'ok \u2713' }, 422);
  });
});
