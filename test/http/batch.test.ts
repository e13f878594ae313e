import { expect } from 'chai';
import { TestCore, type Json } from '../support/core.js';

const TOKEN = 'batch-token';

describe('POST /api/v1/batch', function () {
  this.timeout(60000);
  let core: TestCore;

  const changeSeq = async () => Number((await core.db.publishState.findUnique({ where: { id: 1 } }))?.change_seq ?? 0n);
  const domainNamed = (apex: string) => core.db.domain.findFirst({ where: { domain: apex } });

  before(async () => {
    core = await TestCore.start({ CDN_API_TOKEN: TOKEN });
    core.token = TOKEN;
  });
  after(async () => core.stop());

  it('runs the writes in order in one transaction: refs name created ids, each write is audited, the config is marked dirty once', async () => {
    const before = await changeSeq();
    const answer = await core.post(
      '/api/v1/batch',
      {
        operations: [
          { ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-one.example' } },
          { ref: 'www', method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body: { type: 'A', name: 'www', content: '192.0.2.10' } },
          { method: 'PATCH', path: '/api/v1/domains/@{d}/dns/records/@{www}', body: { ttl: 900 } },
          { method: 'PUT', path: '/api/v1/domains/@{d}/dns/records/@{www}/geo-routes', body: { routes: [{ scope: 'default', target: '192.0.2.11' }] } },
          { method: 'POST', path: '/api/v1/domains/@{d}/redirects', body: { name: 'old', match: { paths: [{ kind: 'exact', value: '/old' }] }, target: '/new' } },
        ],
      },
      200,
      { headers: { 'x-request-id': 'batch-request-1' } },
    );
    const results = answer.data.results as Json[];
    expect(results.map((result) => result.status)).to.deep.equal([201, 201, 200, 200, 201]);
    expect(results[2].body.data).to.include({ name: 'www', ttl: 900 });
    const domain = results[0].body.data;
    const audit = await core.db.auditEvent.findMany({ where: { request_id: 'batch-request-1' }, orderBy: { id: 'asc' } });
    expect(audit.map((event) => event.action)).to.deep.equal(['domain.create', 'dns_record.create', 'dns_record.update', 'geo_routes.replace', 'redirect.create']);
    expect(audit.every((event) => event.domain_id === domain.id)).to.equal(true);
    expect(await changeSeq()).to.equal(before + 1);
  });

  it('moves the read versions once, so cached lists show what a batch wrote', async () => {
    const id = (await domainNamed('batch-one.example'))!.id;
    const version = async () => (await core.db.readVersion.findMany({ orderBy: { name: 'asc' } })).map((row) => Number(row.version));
    const before = await version();
    expect((await core.get(`/api/v1/domains/${id}/dns/records`)).data.map((record: Json) => record.name)).to.deep.equal(['www']);
    await core.post('/api/v1/batch', { operations: [{ method: 'POST', path: `/api/v1/domains/${id}/dns/records`, body: { type: 'TXT', name: 'cached', content: 'seen' } }] }, 200);
    expect((await core.get(`/api/v1/domains/${id}/dns/records`)).data.map((record: Json) => record.name)).to.deep.equal(['cached', 'www']);
    expect(await version()).to.deep.equal(before.map((value) => value + 1));
  });

  it('leaves everything as it was when a write fails, and names the operation and its field', async () => {
    const answer = await core.post(
      '/api/v1/batch',
      {
        operations: [
          { ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-two.example' } },
          { method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body: { type: 'A', name: 'www', content: '192.0.2.10' } },
          { method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body: { type: 'A', name: 'bad', content: '999.1.1.1' } },
        ],
      },
      422,
    );
    expect(answer.field).to.equal('operations[2].body.content');
    expect(answer.operation).to.equal(2);
    expect(answer.detail).to.match(/^operation 2 \(POST \/api\/v1\/domains\/@\{d\}\/dns\/records\): /);
    expect(await domainNamed('batch-two.example')).to.equal(null);
  });

  it('creates a run of records, origins and rules on one path together, with the same checks and one audit event each', async () => {
    const records = (items: object[]) => items.map((body) => ({ method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body }));
    const answer = await core.post(
      '/api/v1/batch',
      {
        operations: [
          { ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-run.example' } },
          ...records([{ type: 'A', name: 'www', content: '192.0.2.1' }, { type: 'A', name: 'www', content: '192.0.2.2' }, { type: 'MX', name: '@', content: '10 mx.batch-run.example' }]),
          { method: 'POST', path: '/api/v1/domains/@{d}/origins', body: { host: 'a.origin.example' } },
          { method: 'POST', path: '/api/v1/domains/@{d}/origins', body: { host: 'b.origin.example', weight: 5 } },
          { method: 'POST', path: '/api/v1/domains/@{d}/redirects', body: { name: 'one', match: { paths: [{ kind: 'exact', value: '/1' }] }, target: '/one' } },
          { method: 'POST', path: '/api/v1/domains/@{d}/redirects', body: { name: 'two', match: { paths: [{ kind: 'exact', value: '/2' }] }, target: '/two' } },
        ],
      },
      200,
      { headers: { 'x-request-id': 'batch-run-1' } },
    );
    const results = answer.data.results as Json[];
    expect(results.map((result) => result.status)).to.deep.equal([201, 201, 201, 201, 201, 201, 201, 201]);
    expect(results.slice(1, 4).map((result) => result.body.data.content)).to.deep.equal(['192.0.2.1', '192.0.2.2', '10 mx.batch-run.example']);
    expect(results[5].body.data).to.include({ host: 'b.origin.example', weight: 5, port: 443 });
    const audit = await core.db.auditEvent.findMany({ where: { request_id: 'batch-run-1' }, orderBy: { id: 'asc' } });
    expect(audit.map((event) => event.target_id)).to.deep.equal(results.map((result) => result.body.data.id));
    expect(audit.map((event) => event.action)).to.deep.equal(['domain.create', 'dns_record.create', 'dns_record.create', 'dns_record.create', 'origin.create', 'origin.create', 'redirect.create', 'redirect.create']);
  });

  it('refuses the right operation of a run, against the zone and the operations before it, and writes nothing', async () => {
    const refusal = async (operations: object[]) => core.post('/api/v1/batch', { operations: [{ ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-refused.example' } }, ...operations] }, 422);
    const record = (body: object) => ({ method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body });
    const duplicate = await refusal([record({ type: 'A', name: 'www', content: '192.0.2.1' }), record({ type: 'A', name: 'x', content: '192.0.2.1' }), record({ type: 'A', name: 'WWW', content: '192.0.2.1' })]);
    expect(duplicate).to.include({ field: 'operations[3].body.content', operation: 3 });
    const cname = await refusal([record({ type: 'A', name: 'www', content: '192.0.2.1' }), record({ type: 'CNAME', name: 'www', content: 'elsewhere.example' })]);
    expect(cname).to.include({ field: 'operations[2].body.type', operation: 2 });
    const invalid = await refusal([record({ type: 'A', name: 'a', content: '192.0.2.1' }), record({ type: 'MX', name: 'b', content: '10 mx.example', proxied: true })]);
    expect(invalid).to.include({ field: 'operations[2].body.proxied', operation: 2 });
    const origin = (body: object) => ({ method: 'POST', path: '/api/v1/domains/@{d}/origins', body });
    expect(await refusal([origin({ host: 'o.example' }), origin({ host: 'O.example', port: 443 })])).to.include({ field: 'operations[2].body.host', operation: 2 });
    const late = await refusal([record({ type: 'A', name: 'www', content: '192.0.2.1' }), record({ type: 'A', name: 'www', content: '192.0.2.1' }), record({ type: 'A', name: 'ok', content: '192.0.2.1', ttl: 5 })]);
    expect(late, 'a duplicate before a schema problem is refused first').to.include({ field: 'operations[2].body.content', operation: 2 });
    const rule = (name: string) => ({ method: 'POST', path: '/api/v1/domains/@{d}/waf-rules', body: { name, signatures: ['xss'] } });
    expect(await refusal([rule('a'), rule('b'), rule('a')])).to.include({ field: 'operations[3].body.name', operation: 3 });
    expect(await domainNamed('batch-refused.example')).to.equal(null);
  });

  it('refuses the first operation of a run whose rule name or origin is already stored, before a later refusal of another kind', async () => {
    const domain = await core.createDomain('batch-stored.example');
    await core.post(`/api/v1/domains/${domain.id}/redirects`, { name: 'kept', target: '/kept' }, 201);
    await core.post(`/api/v1/domains/${domain.id}/origins`, { host: 'kept.origin.example' }, 201);
    const refusal = async (operations: object[]) => core.post('/api/v1/batch', { operations }, 422);
    const redirect = (name: string, target = `/${name}`) => ({ method: 'POST', path: `/api/v1/domains/${domain.id}/redirects`, body: { name, target } });
    const origin = (host: string, extra: object = {}) => ({ method: 'POST', path: `/api/v1/domains/${domain.id}/origins`, body: { host, ...extra } });
    expect(await refusal([redirect('new'), redirect('kept'), redirect('also-new')]), 'found by the insert').to.include({ field: 'operations[1].body.name', operation: 1 });
    expect(await refusal([redirect('new'), redirect('kept'), redirect('bad', 'no-slash')]), 'the stored name comes first').to.include({ field: 'operations[1].body.name', operation: 1 });
    expect(await refusal([redirect('new'), redirect('bad', 'no-slash'), redirect('kept')])).to.include({ field: 'operations[1].body.target', operation: 1 });
    expect(await refusal([origin('new.origin.example'), origin('KEPT.origin.example', { port: 443 })])).to.include({ field: 'operations[1].body.host', operation: 1 });
    expect(await refusal([origin('kept.origin.example'), origin('bad host')])).to.include({ field: 'operations[0].body.host', operation: 0 });
    const names = (await core.get(`/api/v1/domains/${domain.id}/redirects`)).data.map((rule: Json) => rule.name);
    expect(names).to.deep.equal(['kept']);
    expect((await core.get(`/api/v1/domains/${domain.id}/origins`)).data).to.have.length(1);
  });

  it('sees a domain moved or deleted by an earlier operation of the same batch', async () => {
    const record = (name: string) => ({ method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body: { type: 'A', name, content: '192.0.2.1' } });
    const moved = await core.post('/api/v1/batch', {
      operations: [{ ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-moving.example' } }, record('www'), { method: 'PATCH', path: '/api/v1/domains/@{d}', body: { domain: 'batch-moved.example' } }, record('api')],
    });
    expect(moved.data.results.map((result: Json) => result.body.data.fqdn ?? result.body.data.domain)).to.deep.equal(['batch-moving.example', 'www.batch-moving.example', 'batch-moved.example', 'api.batch-moved.example']);
    const deleted = await core.post('/api/v1/batch', { operations: [{ ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-gone.example' } }, { method: 'DELETE', path: '/api/v1/domains/@{d}' }, record('www')] }, 404);
    expect(deleted).to.include({ operation: 2 });
    expect(await domainNamed('batch-gone.example')).to.equal(null);
  });

  it('answers a schema problem of one operation with its path under operations[i].body', async () => {
    const id = (await domainNamed('batch-one.example'))!.id;
    const answer = await core.post('/api/v1/batch', { operations: [{ method: 'POST', path: `/api/v1/domains/${id}/dns/records`, body: { type: 'A', name: 'x', content: '192.0.2.1', ttl: 5 } }] }, 422);
    expect(answer.field).to.equal('operations[0].body.ttl');
    await core.post('/api/v1/batch', { operations: [{ method: 'POST', path: `/api/v1/domains/${id}/dns/records` }] }, 422);
  });

  it('refuses what is not an audited control-plane write, an unknown ref, and an admin-session write sent with the API token', async () => {
    const id = (await domainNamed('batch-one.example'))!.id;
    const refused = [
      { method: 'POST', path: '/api/v1/edges/heartbeat', body: {} },
      { method: 'POST', path: '/api/v1/config/snapshots/rebuild' },
      { method: 'POST', path: '/api/v1/batch', body: { operations: [] } },
      { method: 'DELETE', path: '/api/v1/domains/@{nothing}' },
      { method: 'PATCH', path: '/api/v1/domains/%E0%A4%A' },
    ];
    for (const operation of refused) {
      const answer = await core.post('/api/v1/batch', { operations: [operation] }, 422);
      expect(answer.field, JSON.stringify(operation)).to.equal('operations[0].path');
    }
    // Actions whose cost is not a row's are sent alone.
    const actions = [
      { method: 'POST', path: `/api/v1/domains/${id}/nameservers/force-verify`, body: { reason: 'test' } },
      { method: 'POST', path: `/api/v1/domains/${id}/cache/purge`, body: { scope: 'all' } },
      { method: 'POST', path: `/api/v1/domains/${id}/verify-nameservers` },
      { method: 'POST', path: '/api/v1/usage/recalculate', body: {} },
      { method: 'POST', path: '/api/v1/admin/logout' },
    ];
    for (const operation of actions) {
      const answer = await core.post('/api/v1/batch', { operations: [operation] }, 422);
      expect(answer.field, JSON.stringify(operation)).to.equal('operations[0].path');
    }
    expect(await core.post('/api/v1/batch', { operations: [{ method: 'DELETE', path: '/api/v1/domains/a\u0000b' }] }, 422)).to.include({ field: 'operations.0.path' });
    expect(await core.post('/api/v1/batch', { operations: [{ method: 'DELETE', path: '/api/v1/domains/a%00b' }] }, 422)).to.include({ field: 'operations[0].path' });
    await core.post('/api/v1/batch', { operations: [{ method: 'GET', path: '/api/v1/domains' }] }, 422);
    await core.post('/api/v1/batch', { operations: [] }, 422);
    await core.post('/api/v1/batch', { operations: Array.from({ length: 10001 }, () => ({ method: 'DELETE', path: `/api/v1/domains/${id}` })) }, 422);
    await core.post('/api/v1/batch', { operations: [{ method: 'DELETE', path: `/api/v1/domains/${id}` }] }, 401, { token: 'wrong' });
    expect(await domainNamed('batch-one.example')).to.not.equal(null);
  });

  it('takes a body past CDN_API_MAX_BODY_BYTES, up to CDN_API_MAX_BATCH_BODY_BYTES', async () => {
    const records = Array.from({ length: 4000 }, (_, index) => ({ method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body: { type: 'TXT', name: `t${index}`, content: 'x'.repeat(250) } }));
    const body = { operations: [{ ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-large.example' } }, ...records] };
    expect(JSON.stringify(body).length).to.be.above(1048576);
    await core.post('/api/v1/batch', body, 200);
    expect(await core.db.dnsRecord.count({ where: { domain: { domain: 'batch-large.example' } } })).to.equal(4000);
    await core.post('/api/v1/domains', { domain: 'x'.repeat(1048576) }, 413);
  });

  it('runs a batch that lost a deadlock again from the operations as sent: the audit log records no filled-in defaults', async () => {
    type Work = (tx: unknown) => Promise<unknown>;
    const prisma = core.db as unknown as { $transaction: (work: Work, options: unknown) => Promise<unknown> };
    const original = prisma.$transaction;
    let attempts = 0;
    prisma.$transaction = function (this: unknown, work: Work, options: unknown) {
      attempts++;
      if (attempts > 1) return original.call(this, work, options);
      return original.call(this, async (tx: unknown) => {
        await work(tx);
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }, options);
    };
    try {
      const operations = [
        { ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-retried.example' } },
        { method: 'POST', path: '/api/v1/domains/@{d}/dns/records', body: { type: 'A', name: 'www', content: '192.0.2.1' } },
      ];
      await core.post('/api/v1/batch', { operations }, 200, { headers: { 'x-request-id': 'batch-retried' } });
    } finally {
      prisma.$transaction = original;
    }
    expect(attempts).to.equal(2);
    const audit = await core.db.auditEvent.findMany({ where: { request_id: 'batch-retried' }, orderBy: { id: 'asc' } });
    expect(audit.map((event) => event.detail)).to.deep.equal([{ body: { domain: 'batch-retried.example' } }, { body: { type: 'A', name: 'www', content: '192.0.2.1' } }]);
  });

  it('creates a domain once when the same batch is sent 50 times in parallel, and never answers 5xx', async () => {
    const body = { operations: [{ ref: 'd', method: 'POST', path: '/api/v1/domains', body: { domain: 'batch-race.example' } }, { method: 'POST', path: '/api/v1/domains/@{d}/origins', body: { host: 'origin.batch-race.example' } }] };
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async () => (await fetch(`${core.url}/api/v1/batch`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).status),
    );
    expect(statuses.filter((status) => status === 200)).to.have.length(1);
    expect(statuses.every((status) => status === 200 || status === 422), statuses.join(',')).to.equal(true);
    const domain = (await domainNamed('batch-race.example'))!;
    expect(await core.db.origin.count({ where: { domain_id: domain.id } })).to.equal(1);
  });
});
