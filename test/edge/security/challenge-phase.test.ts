import { createHash } from 'node:crypto';
import http from 'node:http';
import { expect } from 'chai';
import { challengePhase, CLEARANCE_COOKIE } from '../../../src/edge/security/challenge-phase.js';
import { ipRulesPhase } from '../../../src/edge/security/ip-rules-phase.js';
import { issueChallengeToken, issueClearance, PROOF_OF_WORK_BITS } from '../../../src/edge/security/challenge-token.js';
import { wafPhase } from '../../../src/edge/security/waf-phase.js';
import { pageRulesPhase } from '../../../src/edge/rules/page-rules-phase.js';
import { urlPatternMatch } from '../../../src/shared/rules/page-rules.js';
import { activeConfig, DOMAIN_ID, rule } from '../rules/request-context.js';
import { CLIENT_IP_HEADER, startTestEdge, type TestEdge } from './edge-server.js';

const SECRET = 'challenge-test-secret';
const TTL = 1800;

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

function send(edge: TestEdge, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: edge.port, method: options.method ?? 'GET', path: options.path, headers: { host: 'example.com', ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function pageField(html: string, name: string): string {
  const found = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!found) throw new Error(`no ${name} field in the page`);
  return found[1].replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

function solve(token: string, level: number): string {
  const bits = PROOF_OF_WORK_BITS[level];
  if (bits === 0) return createHash('sha256').update(token).digest('hex');
  for (let nonce = 0; ; nonce++) if (createHash('sha256').update(token + nonce).digest().readUInt32BE(0) >>> (32 - bits) === 0) return String(nonce);
}

function post(edge: TestEdge, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  return send(edge, { method: 'POST', path: '/__cdn/challenge', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
}

describe('challenge phase', () => {
  let clock = 1_700_000_000_000;
  const now = () => clock;
  const config = activeConfig(
    {
      'ip-rules': [rule({ id: 'office', cidr: '198.51.100.0/24', action: 'allow', match: { ips: ['198.51.100.0/24'] } })],
      'waf-rules': [
        rule({ id: 'hard', match: { paths: [{ kind: 'prefix', value: '/hard' }] }, action: 'challenge', challenge_difficulty: 5 }),
        rule({ id: 'easy', match: { paths: [{ kind: 'prefix', value: '/easy' }] }, action: 'challenge', challenge_difficulty: 2 }),
      ],
    },
    { security_level: 'under_attack' },
    1,
  );
  let edge: TestEdge;
  let secureEdge: TestEdge;

  before(async () => {
    edge = await startTestEdge(config, [ipRulesPhase, wafPhase], challengePhase({ secret: SECRET, ttlSeconds: TTL, now }));
    secureEdge = await startTestEdge(config, [ipRulesPhase, wafPhase], challengePhase({ secret: SECRET, ttlSeconds: TTL, now }), 'https');
  });
  after(async () => {
    await edge.close();
    await secureEdge.close();
  });
  beforeEach(() => {
    clock = 1_700_000_000_000;
  });

  it('answers a request under attack with a self-contained challenge page', async () => {
    const answer = await send(edge, { path: '/shop?item=1' });
    expect(answer.status).to.equal(403);
    expect(answer.headers['cache-control']).to.equal('no-store');
    expect(answer.headers['content-security-policy']).to.match(/^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; form-action 'self'/);
    expect(answer.body).to.not.match(/\b(src|href)=/);
    expect(pageField(answer.body, 'return')).to.equal('/shop?item=1');
    expect(edge.findings.at(-1)).to.deep.equal([{ kind: 'challenge', action: 'challenge', rule_id: null, details: { level: 1, reason: 'under_attack' } }]);
  });

  it('sets a clearance on a solved challenge and sends the browser back, then lets it through', async () => {
    const page = await send(edge, { path: '/shop?item=1' });
    const answer = await post(edge, { token: pageField(page.body, 'token'), return: pageField(page.body, 'return'), nonce: solve(pageField(page.body, 'token'), 1) });
    expect(answer.status).to.equal(303);
    expect(answer.headers.location).to.equal('/shop?item=1');
    const cookie = answer.headers['set-cookie']?.[0] ?? '';
    expect(cookie).to.match(new RegExp(`^${CLEARANCE_COOKIE}=1\\.\\d+\\.[\\w-]{43}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${TTL}$`));
    expect(edge.findings.at(-1)).to.deep.equal([{ kind: 'challenge', action: 'pass', rule_id: null, details: { level: 1 } }]);
    const back = await send(edge, { path: '/shop?item=1', headers: { cookie: cookie.split(';')[0] } });
    expect(back.status).to.equal(200);
    expect(back.body).to.equal('origin says hello /shop');
  });

  it('marks the clearance Secure over https', async () => {
    const page = await send(secureEdge, { path: '/' });
    const token = pageField(page.body, 'token');
    const answer = await post(secureEdge, { token, return: '/', nonce: solve(token, 1) });
    expect(answer.headers['set-cookie']?.[0]).to.match(/; Secure$/);
  });

  it('challenges again once the clearance expired or when it is for another address', async () => {
    const cookie = `${CLEARANCE_COOKIE}=${issueClearance(SECRET, { domainId: DOMAIN_ID, clientIp: '192.0.2.20' }, 1, TTL, clock)}`;
    expect((await send(edge, { path: '/', headers: { cookie, [CLIENT_IP_HEADER]: '192.0.2.20' } })).status).to.equal(200);
    expect((await send(edge, { path: '/', headers: { cookie, [CLIENT_IP_HEADER]: '192.0.2.21' } })).status).to.equal(403);
    clock += TTL * 1000;
    expect((await send(edge, { path: '/', headers: { cookie, [CLIENT_IP_HEADER]: '192.0.2.20' } })).status).to.equal(403);
  });

  it('challenges at the level a rule asks, which a lower clearance does not satisfy', async () => {
    const binding = { domainId: DOMAIN_ID, clientIp: '192.0.2.30' };
    const headers = (level: number) => ({ cookie: `${CLEARANCE_COOKIE}=${issueClearance(SECRET, binding, level, TTL, clock)}`, [CLIENT_IP_HEADER]: binding.clientIp });
    const hard = await send(edge, { path: '/hard', headers: headers(3) });
    expect(hard.status).to.equal(403);
    expect(hard.body).to.include('data-bits="16"');
    expect(edge.findings.at(-1)).to.deep.equal([{ kind: 'waf', action: 'challenge', rule_id: 'hard', details: { level: 5 } }]);
    expect((await send(edge, { path: '/hard', headers: headers(5) })).status).to.equal(200);
    expect((await send(edge, { path: '/easy', headers: headers(5) })).status).to.equal(200);
  });

  it('never challenges an address an IP rule allows, and follows a page rule security level', async () => {
    expect((await send(edge, { path: '/hard', headers: { [CLIENT_IP_HEADER]: '198.51.100.9' } })).status).to.equal(200);
    const calm = activeConfig({ 'page-rules': [rule({ url_pattern: 'example.com/calm*', settings: { security_level: 'medium' }, match: urlPatternMatch('example.com/calm*') })] }, { security_level: 'under_attack' });
    const calmEdge = await startTestEdge(calm, [pageRulesPhase], challengePhase({ secret: SECRET, ttlSeconds: TTL, now }));
    try {
      expect((await send(calmEdge, { path: '/calm/page' })).status).to.equal(200);
      expect((await send(calmEdge, { path: '/stormy' })).status).to.equal(403);
    } finally {
      await calmEdge.close();
    }
  });

  const refusals: { name: string; fields: (token: string) => Record<string, string>; reason: string }[] = [
    { name: 'a wrong solution', fields: (token) => ({ token, return: '/', nonce: '0'.repeat(64) }), reason: 'wrong solution' },
    { name: 'a forged token signature', fields: (token) => ({ token: token.replace(/\.[\w-]{43}$/, `.${'A'.repeat(43)}`), return: '/', nonce: solve(token, 1) }), reason: 'bad signature' },
    { name: 'a missing token', fields: () => ({ return: '/', nonce: 'x' }), reason: 'malformed' },
    { name: 'a return to another host', fields: (token) => ({ token, return: '//evil.example/', nonce: solve(token, 1) }), reason: 'bad return path' },
    { name: 'a return through a backslash', fields: (token) => ({ token, return: '/\\evil.example/', nonce: solve(token, 1) }), reason: 'bad return path' },
    { name: 'an absolute return URL', fields: (token) => ({ token, return: 'https://evil.example/', nonce: solve(token, 1) }), reason: 'bad return path' },
    { name: 'a return with a line break', fields: (token) => ({ token, return: '/a\r\nset-cookie: x=1', nonce: solve(token, 1) }), reason: 'bad return path' },
  ];
  for (const refusal of refusals) {
    it(`refuses ${refusal.name} with 403 and a finding`, async () => {
      const token = issueChallengeToken(SECRET, { domainId: DOMAIN_ID, clientIp: '127.0.0.1' }, 1, clock);
      const answer = await post(edge, refusal.fields(token));
      expect(answer.status).to.equal(403);
      expect(answer.headers['set-cookie']).to.equal(undefined);
      expect(edge.findings.at(-1)).to.deep.equal([{ kind: 'challenge', action: 'block', rule_id: null, details: { reason: refusal.reason } }]);
    });
  }

  it('sends an expired challenge back to the page for a fresh one', async () => {
    const token = issueChallengeToken(SECRET, { domainId: DOMAIN_ID, clientIp: '127.0.0.1' }, 1, clock);
    clock += 301_000;
    const answer = await post(edge, { token, return: '/shop', nonce: solve(token, 1) });
    expect(answer.status).to.equal(303);
    expect(answer.headers.location).to.equal('/shop');
    expect(answer.headers['set-cookie']).to.equal(undefined);
  });

  it('refuses bodies over 4 KiB, other content types and other methods', async () => {
    expect((await post(edge, { token: 'x'.repeat(5000) })).status).to.equal(413);
    expect((await send(edge, { method: 'POST', path: '/__cdn/challenge', headers: { 'content-type': 'application/json' }, body: '{}' })).status).to.equal(415);
    const get = await send(edge, { path: '/__cdn/challenge' });
    expect(get.status).to.equal(405);
    expect(get.headers.allow).to.equal('POST');
  });

  it('refuses to start without a secret', () => {
    expect(() => challengePhase({ secret: '', ttlSeconds: TTL })).to.throw(/CDN_EDGE_CLEARANCE_SECRET/);
  });
});
