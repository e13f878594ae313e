import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { signedHeaders } from '../../../src/shared/signing.js';
import { TestCore, type Json } from '../../support/core.js';

const EDGE_TOKEN = 'cdnedge_security-tests-token-0123456789';

describe('security event ingest', () => {
  let core: TestCore;
  let domain: Json;
  const now = Math.floor(Date.now() / 1000);
  before(async () => {
    core = await TestCore.start({ CDN_BOOTSTRAP_EDGE_TOKEN: EDGE_TOKEN });
    domain = await core.createDomain('secure.example');
  });
  after(async () => {
    await core.stop();
  });

  const push = async (batch: object) => {
    const path = '/api/v1/collector/security-events';
    const body = JSON.stringify(batch);
    const headers = signedHeaders({ token: EDGE_TOKEN, edgeId: 'edge-1', method: 'POST', pathWithQuery: path, body });
    const response = await fetch(`${core.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const event = (extra: object = {}) => ({ domain: 'secure.example', kind: 'waf', action: 'block', rule_id: 'rule-1', method: 'GET', path: '/wp-login.php', client_country: 'DE', client_ip: '192.0.2.9', timestamp: now - 5, details: { signature: 'sqli' }, ...extra });

  it('stores valid events with a hashed IP and reports invalid ones, readable through the security API', async () => {
    const answer = await push({ idempotency_key: 'sec-1', events: [event(), event({ kind: 'unknown' }), event({ action: 'challenge', kind: 'rate_limit' })] });
    expect(answer.status).to.equal(200);
    expect(answer.body.data).to.deep.include({ duplicate: false, accepted: 2 });
    expect(answer.body.data.rejected.map((rejection: Json) => [rejection.index, rejection.field])).to.deep.equal([[1, 'kind']]);
    const events = (await core.get(`/api/v1/domains/${domain.id}/security/events`)).data;
    expect(events.map((item: Json) => item.kind).sort()).to.deep.equal(['rate_limit', 'waf']);
    const { value: key } = await core.db.installationSecret.findUniqueOrThrow({ where: { name: 'client_ip_hash_key' } });
    expect(events[0].client_ip).to.equal(createHmac('sha256', Buffer.from(key, 'hex')).update('192.0.2.9').digest('hex'));
    const summary = (await core.get(`/api/v1/security/summary?domain_id=${domain.id}`)).data;
    expect(summary.by_kind).to.deep.equal({ waf: 1, rate_limit: 1 });
    expect(summary.series).to.have.length(1);
    expect(summary.series[0].total).to.equal(2);
    expect(summary.series[0].bucket_start % 3600).to.equal(0);
  });

  it('refuses an event holding text the database cannot store on its own and keeps the rest of the batch', async () => {
    const answer = await push({ events: [event(), event({ user_agent: 'curl\u0000' }), event({ details: { ['sig\u0000']: 'x' } })] });
    expect(answer.status).to.equal(200);
    expect(answer.body.data.accepted).to.equal(1);
    expect(answer.body.data.rejected.map((rejection: Json) => [rejection.index, rejection.field])).to.deep.equal([[1, 'user_agent'], [2, 'details']]);
  });

  it('counts a retried batch once and takes parallel pushes of one queue one after the other (queue lock)', async () => {
    expect((await push({ idempotency_key: 'sec-1', events: [event()] })).body.data.duplicate).to.equal(true);
    const before = await core.db.securityEvent.count();
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => push({ idempotency_key: `parallel-${i}`, queue: 'waf', events: [event({ rule_id: `p${i}` })] })));
    expect(answers.every((answer) => answer.status === 200 && answer.body.data.accepted === 1)).to.equal(true);
    expect(await core.db.securityEvent.count()).to.equal(before + 5);
  });
});
